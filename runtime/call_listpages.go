package runtime

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonrpc"
)

// listItems lists every item of the paginated list method, whose result
// holds the items in the array member key, each decoded by parse; noun names
// an item in errors. It is listPages with the decoding.
func listItems[T any](ctx context.Context, s *Session, method, key, noun string, parse func(raw []byte) (T, error)) ([]T, error) {
	var items []T
	err := s.listPages(ctx, method, key, func(raw []byte) error {
		item, err := parse(raw)
		if err != nil {
			return fmt.Errorf("%s %d: %w", noun, len(items), err)
		}
		items = append(items, item)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return items, nil
}

// listPages lists every item of the paginated list method, whose result
// holds the items in the array member key, and passes each item's bytes to
// add. It follows the cursors under the bounds of pages, and takes at most
// Options.MaxTools items, as ListTools does. Like ListTools, it does not
// wait for an era check still running (see eraCheck): a listing goes out
// under the provisional state.
func (s *Session) listPages(ctx context.Context, method, key string, add func(raw []byte) error) error {
	st := s.state.Load()
	pg := pages{method: method, scrub: s.scrub}
	n := 0
	count := func(raw []byte) error {
		if n == s.opts.MaxTools {
			return fmt.Errorf("the server lists more than %d items (Options.MaxTools)", s.opts.MaxTools)
		}
		n++
		return add(raw)
	}
	for {
		members, err := pg.params()
		if err != nil {
			return err
		}
		res, err := s.do(ctx, st, &request{method: method}, members)
		if err != nil {
			return fmt.Errorf("%s: %w", method, err)
		}
		if err := pg.read(res); err != nil {
			return err
		}
		next, err := decodeListPage(res, key, count)
		if err != nil {
			return fmt.Errorf("%s: %w", method, err)
		}
		more, err := pg.advance(next)
		if err != nil {
			return err
		}
		if !more {
			return nil
		}
	}
}

// decodeListPage passes each item of the array member key of one page to
// add, and returns the next cursor, nil at the end. An empty cursor is a
// cursor.
func decodeListPage(res []byte, key string, add func(raw []byte) error) (*string, error) {
	var next *string
	var sawItems bool
	err := jsonrpc.ObjectEach(res, func(k []byte, escaped bool, v []byte) error {
		switch {
		case jsonrpc.KeyIs(k, escaped, key):
			sawItems = true
			if jsonrpc.IsNull(v) {
				return nil
			}
			return jsonrpc.ArrayEach(v, add)
		case jsonrpc.KeyIs(k, escaped, "nextCursor"):
			if jsonrpc.IsNull(v) {
				return nil
			}
			c, err := jsonrpc.String(v)
			if err != nil {
				return fmt.Errorf("nextCursor: %w", err)
			}
			next = &c
		case jsonrpc.KeyIs(k, escaped, "resultType"):
			return checkResultType(v)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !sawItems {
		return nil, errors.New("the result has no " + key + " array")
	}
	return next, nil
}
