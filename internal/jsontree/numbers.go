package jsontree

import (
	"math/big"
	"strconv"
	"strings"
)

// JSON Schema compares numbers by their exact value; a float64 cannot tell
// integers beyond 2^53 apart (9007199254740993 reads as 9007199254740992).
// The functions below work on the decimal literal instead, without
// expanding its exponent, so that a hostile 1e999999999 costs nothing.

// decimal is a JSON number as its sign, its significant digits (no leading
// or trailing zeros; "" for zero) and an exponent: the value is
// 0.digits × 10^exp.
type decimal struct {
	neg    bool
	digits string
	exp    int64
}

// maxExp bounds the exponents parseDecimal accepts, far beyond any float64,
// so that its arithmetic cannot overflow.
const maxExp = 1 << 60

// parseDecimal parses a JSON number literal.
func parseDecimal(s string) (decimal, bool) {
	var d decimal
	if strings.HasPrefix(s, "-") {
		d.neg, s = true, s[1:]
	}
	var exp int64
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.ParseInt(strings.TrimPrefix(s[i+1:], "+"), 10, 64)
		if err != nil || e > maxExp || e < -maxExp {
			return d, false
		}
		s, exp = s[:i], e
	}
	whole, frac := s, ""
	if i := strings.IndexByte(s, '.'); i >= 0 {
		whole, frac = s[:i], s[i+1:]
	}
	digits := whole + frac
	if digits == "" || strings.Trim(digits, "0123456789") != "" || int64(len(digits)) > maxExp {
		return d, false
	}
	// The value is 0.digits × 10^(exp+len(whole)); drop the zeros.
	exp += int64(len(whole))
	trimmed := strings.TrimLeft(digits, "0")
	exp -= int64(len(digits) - len(trimmed))
	d.digits = strings.TrimRight(trimmed, "0")
	if d.digits == "" {
		d.neg, d.exp = false, 0
		return d, true
	}
	d.exp = exp
	return d, true
}

// cmpAbs compares the magnitudes of a and b.
func cmpAbs(a, b decimal) int {
	switch {
	case a.digits == "" || b.digits == "":
		return strings.Compare(a.digits, b.digits) // "" is zero
	case a.exp != b.exp:
		if a.exp < b.exp {
			return -1
		}
		return 1
	}
	return strings.Compare(a.digits, b.digits)
}

// CompareNumbers compares the values of the JSON number literals a and b
// exactly: it returns -1, 0 or +1, and false when either is not a number.
func CompareNumbers(a, b string) (int, bool) {
	da, ok1 := parseDecimal(a)
	db, ok2 := parseDecimal(b)
	if !ok1 || !ok2 {
		return 0, false
	}
	switch {
	case da.neg && !db.neg:
		return -1, true
	case !da.neg && db.neg:
		return 1, true
	case da.neg:
		return -cmpAbs(da, db), true
	}
	return cmpAbs(da, db), true
}

// Trunc returns the integer part of the JSON number literal s, rounded
// toward zero, and whether s has a fractional part. ok is false when s is
// not a number or its integer part has more than maxDigits digits.
func Trunc(s string, maxDigits int) (n *big.Int, frac, ok bool) {
	d, ok := parseDecimal(s)
	if !ok || d.exp > int64(maxDigits) {
		return nil, false, false
	}
	if d.exp <= 0 {
		return new(big.Int), d.digits != "", true
	}
	e := int(d.exp)
	whole := d.digits
	if len(whole) > e {
		whole, frac = whole[:e], true
	} else {
		whole += strings.Repeat("0", e-len(whole))
	}
	n, _ = new(big.Int).SetString(whole, 10)
	if d.neg {
		n.Neg(n)
	}
	return n, frac, true
}

// Int64 returns the value of the JSON number literal s when it is an
// integer that an int64 holds, however it is written (5, 5.0, 5e0).
func Int64(s string) (int64, bool) {
	n, frac, ok := Trunc(s, 19)
	if !ok || frac || !n.IsInt64() {
		return 0, false
	}
	return n.Int64(), true
}

// canonicalNumber returns one text for every literal of the value of the
// JSON number s (1, 1.0 and 10e-1 give the same), or s itself when it is
// not a number.
func canonicalNumber(s string) string {
	d, ok := parseDecimal(s)
	switch {
	case !ok:
		return s
	case d.digits == "":
		return "0"
	}
	sign := ""
	if d.neg {
		sign = "-"
	}
	return sign + "0." + d.digits + "e" + strconv.FormatInt(d.exp, 10)
}
