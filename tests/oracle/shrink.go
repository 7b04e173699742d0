package main

import (
	"encoding/hex"
	"strings"
)

// shrink makes a mismatching case smaller while it still mismatches: it
// drops whole tokens (containers, fields, pods), then elements of a token's
// lists, then single characters (digits of a quantity), until none of these
// keeps the mismatch.
func shrink(o *oracle, d *driver, line string) string {
	still := func(cand string) bool {
		want, rule := o.answer(cand)
		if rule != "" || want == "unparsable" {
			return false
		}
		got := d.ask(cand)
		return got != "bad" && got != want
	}
	// A bound on the work, so that a case that shrinks slowly still ends.
	budget := 50000
	for progress := true; progress && budget > 0; {
		progress = false
		for _, cand := range candidates(line) {
			if budget--; budget <= 0 {
				break
			}
			if cand != line && still(cand) {
				line, progress = cand, true
				break
			}
		}
	}
	return line
}

func candidates(line string) []string {
	var out []string
	tokens := strings.Split(line, " ")
	// Whole tokens, and a whole pod of a score case.
	for i := 1; i < len(tokens); i++ {
		out = append(out, join(tokens[:i], tokens[i+1:]))
		if tokens[i] == "|" {
			j := i + 1
			for j < len(tokens) && tokens[j] != "|" {
				j++
			}
			out = append(out, join(tokens[:i], tokens[j:]))
		}
	}
	// One element of a token's lists, or the token emptied.
	for i := 1; i < len(tokens); i++ {
		t := tokens[i]
		for _, sep := range []string{";", "|", "&", ","} {
			parts := strings.Split(t, sep)
			for k := range parts {
				if len(parts) > 1 {
					rest := append(append([]string{}, parts[:k]...), parts[k+1:]...)
					out = append(out, replace(tokens, i, strings.Join(rest, sep)))
				}
			}
		}
		for _, empty := range []string{"~", "-", "0"} {
			out = append(out, replace(tokens, i, empty))
		}
	}
	// Single characters: of the quantity text itself for Q.
	if len(tokens) == 3 && tokens[0] == "Q" {
		text, err := hex.DecodeString(tokens[2])
		if err == nil {
			for k := range text {
				t := append(append([]byte{}, text[:k]...), text[k+1:]...)
				out = append(out, "Q "+tokens[1]+" "+hex.EncodeToString(t))
			}
		}
		return out
	}
	for i := 1; i < len(tokens); i++ {
		for k := range tokens[i] {
			out = append(out, replace(tokens, i, tokens[i][:k]+tokens[i][k+1:]))
		}
	}
	return out
}

func join(a, b []string) string {
	return strings.Join(append(append([]string{}, a...), b...), " ")
}

func replace(tokens []string, i int, t string) string {
	c := append([]string{}, tokens...)
	c[i] = t
	return strings.Join(c, " ")
}
