// Package sse reads Server-Sent Events streams, as the MCP HTTP transports
// receive them.
//
// It follows the event stream interpretation rules of the HTML standard: a
// byte order mark that starts a stream is dropped; lines end in CRLF, LF or
// CR; a line starting with a colon is a comment; the fields are event, data,
// id and retry; several data lines join with newlines; an empty line
// dispatches the event. An event whose data grows past a size limit is
// reported as a *TooLargeError and skipped, and the stream goes on.
package sse

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// An Event is one dispatched event.
type Event struct {
	// Type is the value of the event field; "" when the stream gave none,
	// which the standard reads as "message".
	Type string
	// Data is the event's data, its lines joined with "\n". It may be empty:
	// MCP servers send events with empty data to prime a stream, and callers
	// skip them. The slice is freshly allocated for each event.
	Data []byte
	// ID is the last event id of the stream when the event was dispatched.
	ID string
}

// TooLargeError reports an event whose data exceeds the limit. Prefix and
// Suffix hold the first and the last bytes of that data, at most PrefixSize
// each. The reader has skipped the rest of the event.
type TooLargeError struct {
	Limit  int
	Prefix []byte
	Suffix []byte
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("event exceeds the %d-byte limit", e.Limit)
}

// PrefixSize is how many bytes of an oversize event a TooLargeError keeps.
const PrefixSize = 512

// A Reader reads events from a stream. It is not safe for concurrent use.
type Reader struct {
	src     io.Reader
	buf     []byte
	start   int // first unread byte in buf
	end     int // end of the bytes read into buf
	err     error
	limit   int
	maxLine int

	skipLF     bool   // the last line ended in CR at the end of buf: drop a leading LF
	atStart    bool   // nothing of the stream is read yet: drop a leading byte order mark
	discarding bool   // inside a line longer than maxLine
	cut        []byte // the kept beginning of that line
	cutTail    []byte // and its last bytes

	// one is the event's data while it has a single data line, the usual
	// case: it becomes the Event's Data without another copy. A second
	// line moves it into data, which then holds every line followed by
	// "\n".
	one      []byte
	hasOne   bool
	data     bytes.Buffer
	hasData  bool
	typ      string
	lastID   string
	idBuf    string // the last id field's value; lastID once an event is dispatched
	retry    time.Duration
	hasRetry bool
	oversize bool // the current event's data went past the limit
	prefix   []byte
	suffix   []byte

	// idle is set by ReleaseWhileIdle: the buffer goes back to bufPool
	// before a read with nothing buffered, and a first read into peek
	// waits for the stream's next bytes.
	idle bool
	bp   *[]byte // a box for buf, to put it in bufPool without allocating
	peek [64]byte
	// waiting is set while waitIdle waits without a buffer.
	waiting atomic.Bool
}

const initialBuffer = 8 << 10

// maxPooled bounds the buffers a released Reader keeps for the next one:
// a stream of large events then reads each into a buffer already grown.
const maxPooled = 4 << 20

// longLine is the length of the last line longer than initialBuffer that
// any Reader read. A Reader whose line outgrows its buffer grows it to
// that much at once, so that a server that keeps sending large events
// costs one buffer per event instead of a chain of ever larger ones.
var longLine atomic.Int64

var readerPool = sync.Pool{New: func() any { return &Reader{buf: make([]byte, initialBuffer)} }}

// bufPool holds the initialBuffer-sized buffers of the Readers that give
// theirs back while idle.
var bufPool = sync.Pool{New: func() any {
	b := make([]byte, initialBuffer)
	return &b
}}

// NewReader returns a Reader of src that fails any event whose data exceeds
// limit bytes. A limit of zero or less means no limit.
func NewReader(src io.Reader, limit int) *Reader {
	r := readerPool.Get().(*Reader)
	buf, data := r.buf, r.data
	data.Reset()
	if buf == nil {
		buf = make([]byte, initialBuffer)
	}
	*r = Reader{src: src, buf: buf[:cap(buf)], data: data, limit: limit, maxLine: math.MaxInt, atStart: true}
	if limit > 0 && limit < math.MaxInt-PrefixSize {
		// A data line holds the field name and a colon and a space before
		// the value; any line longer than this is oversize for any field.
		r.maxLine = limit + PrefixSize
	}
	return r
}

// ReleaseWhileIdle makes the Reader hold no read buffer while it waits for
// a stream's next bytes with none buffered: it gives its buffer back to a
// pool, waits with a read of a few bytes, and takes a buffer again when
// they come. A long-lived stream that is mostly silent, such as the stream
// of a server's own messages, then costs little while it waits; each
// burst of events costs one more short read.
func (r *Reader) ReleaseWhileIdle() { r.idle = true }

// Waiting reports whether the Reader waits for the stream's next bytes
// holding no buffer (see ReleaseWhileIdle). Unlike the other methods, it
// may be called from any goroutine.
func (r *Reader) Waiting() bool { return r.waiting.Load() }

// Release returns the Reader, with its buffers, for reuse. The Reader must
// not be used afterwards.
func (r *Reader) Release() {
	r.src = nil
	r.bp = nil // the buffer stays with the Reader
	if cap(r.buf) > maxPooled || r.data.Cap() > maxPooled {
		return
	}
	readerPool.Put(r)
}

// Reset makes the Reader read a new stream from src, keeping the last event id
// and retry interval of the previous one, as a reconnecting client does.
func (r *Reader) Reset(src io.Reader) {
	r.src = src
	r.start, r.end, r.err = 0, 0, nil
	r.skipLF, r.discarding, r.cut, r.cutTail = false, false, nil, nil
	r.atStart = true
	r.idBuf = r.lastID
	r.endEvent()
}

// LastID returns the last event id the stream set, "" if none: the id of
// the last event dispatched (or skipped as oversize), never that of an
// event cut off by the end of the stream.
func (r *Reader) LastID() string { return r.lastID }

// Retry returns the reconnection time the stream set in a retry field, and
// whether it set one.
func (r *Reader) Retry() (time.Duration, bool) { return r.retry, r.hasRetry }

// Next returns the next event. At the end of the stream it returns io.EOF (or
// the error that ended the stream); an event cut off by the end is not
// dispatched. An oversize event yields a *TooLargeError, after which Next may
// be called again.
func (r *Reader) Next() (Event, error) {
	for {
		line, cut, err := r.readLine()
		if err != nil {
			return Event{}, err
		}
		if len(line) == 0 {
			r.lastID = r.idBuf
			if r.oversize {
				e := &TooLargeError{Limit: r.limit, Prefix: r.prefix, Suffix: r.suffix}
				r.endEvent()
				return Event{}, e
			}
			if !r.hasData {
				r.endEvent()
				continue
			}
			ev := Event{Type: r.typ, ID: r.lastID, Data: r.one}
			if !r.hasOne {
				// The data buffer holds every data line followed by
				// "\n"; the final newline is not part of the data.
				d := r.data.Bytes()
				d = d[:len(d)-1]
				ev.Data = make([]byte, len(d))
				copy(ev.Data, d)
			}
			r.one = nil // the caller's now
			r.endEvent()
			return ev, nil
		}
		r.field(line, cut)
		r.cutTail = nil
	}
}

func (r *Reader) endEvent() {
	r.one, r.hasOne = nil, false
	r.data.Reset()
	r.hasData = false
	r.typ = ""
	r.oversize = false
	r.prefix = nil
	r.suffix = nil
}

// field interprets one non-empty line. cut reports a line longer than the
// reader keeps, of which line is the beginning.
func (r *Reader) field(line []byte, cut bool) {
	if line[0] == ':' {
		return
	}
	name, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	if cut {
		// Only data may be long; a cut line of any other field is garbage.
		if string(name) == "data" {
			r.hasData = true
			if !r.oversize {
				r.tooLarge(value)
			}
			// The data ends with the end of this line, whose last bytes
			// readLine kept.
			r.suffix = keepTail(r.suffix[:0], r.cutTail)
		}
		return
	}
	switch string(name) {
	case "data":
		if r.oversize {
			r.suffix = keepTail(append(r.suffix, '\n'), value)
			return
		}
		if r.limit > 0 && r.dataLen()+len(value) > r.limit {
			r.tooLarge(value)
			return
		}
		if !r.hasData {
			r.hasData, r.hasOne = true, true
			r.one = r.take(value)
			return
		}
		r.spill()
		r.data.Write(value)
		r.data.WriteByte('\n')
	case "event":
		r.typ = string(value)
	case "id":
		// An id containing NUL is ignored, as the standard says.
		if bytes.IndexByte(value, 0) < 0 {
			r.idBuf = string(value)
		}
	case "retry":
		if d, ok := retryValue(value); ok {
			r.retry = d
			r.hasRetry = true
		}
	}
}

// retryValue reads the value of a retry field: milliseconds, in ASCII
// digits only. A value past what a time.Duration holds, about 292 years,
// is that much: a server asking for a long wait gets the longest, not none.
func retryValue(v []byte) (time.Duration, bool) {
	if len(v) == 0 {
		return 0, false
	}
	const most = math.MaxInt64 / int64(time.Millisecond)
	var ms int64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		ms = min(ms*10+int64(c-'0'), most)
	}
	return time.Duration(ms) * time.Millisecond, true
}

// take returns a copy of value, a part of the line just read. When the line
// is long and fills most of the buffer, the buffer itself goes with value,
// instead of a copy of a megabyte, and the Reader moves the bytes it has
// not read yet into a new one.
func (r *Reader) take(value []byte) []byte {
	if len(value) <= initialBuffer || 2*len(value) < len(r.buf) {
		return append(make([]byte, 0, len(value)), value...)
	}
	rest := r.buf[r.start:r.end]
	nb := make([]byte, max(initialBuffer, len(rest)))
	r.end = copy(nb, rest)
	r.start = 0
	r.buf = nb
	return value[:len(value):len(value)]
}

// dataLen is the length of the data buffer, as if one were in it.
func (r *Reader) dataLen() int {
	if r.hasOne {
		return len(r.one) + 1
	}
	return r.data.Len()
}

// spill moves one into the data buffer.
func (r *Reader) spill() {
	if r.hasOne {
		r.data.Write(r.one)
		r.data.WriteByte('\n')
		r.one, r.hasOne = nil, false
	}
}

// tooLarge marks the current event as oversize and keeps its first bytes.
func (r *Reader) tooLarge(more []byte) {
	r.spill()
	r.hasData = true
	r.oversize = true
	p := make([]byte, 0, PrefixSize)
	p = append(p, r.data.Bytes()[:min(r.data.Len(), PrefixSize)]...)
	p = append(p, more[:min(len(more), PrefixSize-len(p))]...)
	r.prefix = p
	r.suffix = keepTail(keepTail(make([]byte, 0, 2*PrefixSize), r.data.Bytes()), more)
	r.data.Reset()
}

// keepTail appends b to t and keeps the last PrefixSize bytes.
func keepTail(t, b []byte) []byte {
	if len(b) >= PrefixSize {
		return append(t[:0], b[len(b)-PrefixSize:]...)
	}
	if over := len(t) + len(b) - PrefixSize; over > 0 {
		t = t[:copy(t, t[over:])]
	}
	return append(t, b...)
}

// readLine returns the next line without its terminator (CRLF, LF or CR). The
// slice is valid until the next call. A line longer than maxLine is returned
// cut to its first PrefixSize bytes, with cut set, so that a huge line is never
// held in memory whole.
func (r *Reader) readLine() (line []byte, cut bool, err error) {
	scan := r.start
	for {
		if r.atStart {
			// The standard decodes the stream as UTF-8, which drops one
			// byte order mark at its start. Until three bytes are in,
			// none of which ends a line, it cannot be told apart.
			b := r.buf[r.start:r.end]
			if len(b) >= len(bom) || !bytes.HasPrefix(bom, b) || r.err != nil {
				if bytes.HasPrefix(b, bom) {
					r.start += len(bom)
					scan = r.start
				}
				r.atStart = false
			}
		}
		if r.skipLF && r.start < r.end {
			if r.buf[r.start] == '\n' {
				r.start++
				scan = r.start
			}
			r.skipLF = false
		}
		if i := lineEnd(r.buf[scan:r.end]); i >= 0 {
			j := scan + i
			line = r.buf[r.start:j]
			if r.buf[j] == '\r' {
				if j+1 < r.end {
					if r.buf[j+1] == '\n' {
						j++
					}
				} else {
					r.skipLF = true
				}
			}
			if r.discarding {
				r.cutTail = keepTail(r.cutTail, line)
				r.start = j + 1
				r.discarding = false
				line, r.cut = r.cut, nil
				return line, true, nil
			}
			r.start = j + 1
			if len(line) > initialBuffer {
				longLine.Store(int64(len(line)))
			}
			return line, false, nil
		}
		if r.err != nil {
			// A last line without a terminator cannot complete an event.
			return nil, false, r.err
		}
		switch {
		case r.discarding:
			r.cutTail = keepTail(r.cutTail, r.buf[r.start:r.end])
			r.start, r.end = 0, 0
		case r.start > 0:
			n := copy(r.buf, r.buf[r.start:r.end])
			r.start, r.end = 0, n
		}
		scan = r.end
		if r.end == len(r.buf) {
			if len(r.buf) >= r.maxLine {
				r.cut = append([]byte(nil), r.buf[:PrefixSize+16]...)
				r.cutTail = keepTail(make([]byte, 0, PrefixSize), r.buf[:r.end])
				r.discarding = true
				r.start, r.end, scan = 0, 0, 0
			} else {
				hint := int(min(longLine.Load(), math.MaxInt/2))
				nb := make([]byte, min(max(2*len(r.buf), hint+hint/8), r.maxLine))
				copy(nb, r.buf[:r.end])
				r.buf = nb
			}
		}
		if r.idle && r.end == 0 && !r.discarding {
			r.waitIdle()
			continue
		}
		n, err := r.src.Read(r.buf[r.end:])
		r.end += n
		if err != nil {
			r.err = err
		}
	}
}

// waitIdle reads the next bytes of the stream, with nothing buffered, into
// peek, with the buffer given back to bufPool while the read waits.
func (r *Reader) waitIdle() {
	if len(r.buf) == initialBuffer {
		r.putBuf()
	}
	r.waiting.Store(r.buf == nil)
	n, err := r.src.Read(r.peek[:])
	r.waiting.Store(false)
	if r.buf == nil {
		r.bp = bufPool.Get().(*[]byte)
		r.buf = *r.bp
	}
	r.start, r.end = 0, copy(r.buf, r.peek[:n])
	if err != nil {
		r.err = err
	}
}

// putBuf gives the buffer back to bufPool.
func (r *Reader) putBuf() {
	if r.bp == nil {
		r.bp = new([]byte)
	}
	*r.bp = r.buf
	bufPool.Put(r.bp)
	r.bp, r.buf = nil, nil
}

// bom is the UTF-8 byte order mark.
var bom = []byte("\ufeff")

// lineEnd returns the index of the first CR or LF in b, or -1.
func lineEnd(b []byte) int {
	n := bytes.IndexByte(b, '\n')
	if n < 0 {
		return bytes.IndexByte(b, '\r')
	}
	if c := bytes.IndexByte(b[:n], '\r'); c >= 0 {
		return c
	}
	return n
}
