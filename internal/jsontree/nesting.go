package jsontree

import "strconv"

// NestedBeyond finds the first array or object of the JSON text data that
// lies inside more than limit arrays and objects, and returns its JSON
// pointer. ok is false when there is none. It reads data once, in linear
// time, and scans malformed text only as far as it makes sense.
func NestedBeyond(data []byte, limit int) (ptr string, ok bool) {
	// open holds the containers around the current position, outermost
	// first: for an object the span of the key being read, for an array
	// the index of the item.
	type frame struct {
		object     bool
		start, end int // the quoted key, in data
		index      int
	}
	var open []frame
	for i := 0; i < len(data); {
		switch c := data[i]; c {
		case '{', '[':
			if len(open) >= limit {
				var b []byte
				for _, f := range open {
					b = append(b, '/')
					if f.object {
						b = append(b, EscapeToken(string(decodeKey(data[f.start:f.end])))...)
					} else {
						b = strconv.AppendInt(b, int64(f.index), 10)
					}
				}
				return string(b), true
			}
			open = append(open, frame{object: c == '{'})
			i++
		case '}', ']':
			if len(open) == 0 {
				return "", false
			}
			open = open[:len(open)-1]
			i++
		case ',':
			if n := len(open); n > 0 && !open[n-1].object {
				open[n-1].index++
			}
			i++
		case '"':
			end, _ := stringEnd(data, i)
			if end < 0 {
				return "", false
			}
			if n := len(open); n > 0 && open[n-1].object {
				if j := skipWS(data, end); j < len(data) && data[j] == ':' {
					open[n-1].start, open[n-1].end = i, end
				}
			}
			i = end
		default:
			i++
		}
	}
	return "", false
}
