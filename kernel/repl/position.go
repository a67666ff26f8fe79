package repl

import (
	"errors"
	"fmt"
	"go/parser"
	"go/scanner"
	"go/token"
	"regexp"
	"strconv"
	"strings"
)

// Where an error points, in what was typed.
//
// yaegi reads a line typed at the prompt inside a file it makes up: "package main; func main() {"
// before a statement, "package main;" before a declaration (its parse, ast.go in v0.16.1); and
// the session wraps some inputs again (an expression in __show.Vals(…) to print it, a compound
// statement in a function __stmtN). yaegi's positions are in that made-up file: an undefined x
// typed at column 1 read "1:40: undefined: x", and an error on the first line of a for loop
// read "2:…". The session maps each position back into what was typed, in Go's form
// (line:column, from 1; the node yaegi names, so a binary operation's first operand where Go's
// compiler names the operator), and drops one that falls in code yaegi or the session added, or in a
// part of a line the session rewrote: no position rather than a wrong one. A parse error past
// the end of the input (yaegi's closing brace) is put at the end of the input, which is where
// Go would find it.

// wrapped is a source handed to yaegi and where what was typed sits in it.
type wrapped struct {
	src   string // handed to yaegi
	at    int    // the byte offset of text in src
	text  string // src[at:at+len(text)]: what was typed, or a rewriting of it
	typed string // what was typed: a position is kept where text and typed agree up to it
}

// verbatim is src typed as it is handed to yaegi.
func verbatim(src string) wrapped { return wrapped{src: src, text: src, typed: src} }

// posError is an evaluation's error with its position in what was typed (line 0: none), in a
// file when file is set (:load, eqf run). Its message keeps yaegi's words; positions inside
// them are mapped too.
type posError struct {
	file      string
	line, col int
	msg       string
	err       error // yaegi's error
}

func (e *posError) Error() string {
	switch {
	case e.line > 0 && e.file != "":
		return fmt.Sprintf("%s:%d:%d: %s", e.file, e.line, e.col, e.msg)
	case e.line > 0:
		return fmt.Sprintf("%d:%d: %s", e.line, e.col, e.msg)
	case e.file != "":
		return e.file + ": " + e.msg
	}
	return e.msg
}

func (e *posError) Unwrap() error { return e.err }

// positionRe matches a position in a yaegi message: "L:C: " (compiling) or "_.go:L:C: "
// (parsing), at the start or after ": ".
var positionRe = regexp.MustCompile(`(^|: )(?:_\.go:)?(\d+):(\d+): `)

// yaegiPrefix is what yaegi v0.16.1 puts before src when it evaluates it at the prompt.
func yaegiPrefix(src string) string {
	var s scanner.Scanner
	fset := token.NewFileSet()
	s.Init(fset.AddFile("", fset.Base(), len(src)), []byte(src), nil, 0)
	_, tok, _ := s.Scan()
	const inMain = "package main; func main() {"
	switch tok {
	case token.PACKAGE:
		return ""
	case token.CONST, token.IMPORT, token.TYPE, token.VAR:
		return "package main;"
	case token.FUNC: // a declaration, unless only a statement parses (a func literal called)
		if _, err := parser.ParseFile(token.NewFileSet(), "", "package main;"+src, 0); err != nil {
			if _, err2 := parser.ParseFile(token.NewFileSet(), "", inMain+src+"\n}", 0); err2 == nil {
				return inMain
			}
		}
		return "package main;"
	}
	return inMain
}

// locate maps yaegi's line:column (from 1) in w.src to one in w.typed; ok is false where it is
// not in what was typed. past is true for a position after the end of the text (its
// closing wrapper), which is put at the end of what was typed.
func (w wrapped) locate(line, col int) (tl, tc int, past, ok bool) {
	if w.typed == "" {
		return 0, 0, false, false
	}
	prefix := yaegiPrefix(w.src)
	full := prefix + w.src + "\n}" // (the closing brace of yaegi's func main)
	off := 0
	for l := 1; l < line; l++ {
		i := strings.IndexByte(full[off:], '\n')
		if i < 0 {
			return 0, 0, false, false
		}
		off += i + 1
	}
	rel := off + col - 1 - len(prefix) - w.at // the offset in text
	if rel < 0 {
		return 0, 0, false, false
	}
	if rel > len(w.text) {
		end := strings.TrimRight(w.typed, " \t\n")
		tl = strings.Count(end, "\n") + 1
		return tl, len(end) - strings.LastIndexByte(end, '\n'), true, true
	}
	before := w.text[:rel]
	tl = strings.Count(before, "\n") + 1
	lineText := before[strings.LastIndexByte(before, '\n')+1:]
	typedLines := strings.Split(w.typed, "\n")
	if tl > len(typedLines) || !strings.HasPrefix(typedLines[tl-1], lineText) {
		return 0, 0, false, false // on a line or after a part the session rewrote
	}
	return tl, len(lineText) + 1, false, true
}

// mapError returns err with its positions in what was typed (a *posError), err itself when it
// is nil or an interruption.
func (w wrapped) mapError(err error) error {
	if err == nil || errors.Is(err, ErrInterrupted) {
		return err
	}
	msg := err.Error()
	pe := &posError{err: err}
	past := false
	var b strings.Builder
	last := 0
	for i, m := range positionRe.FindAllStringSubmatchIndex(msg, -1) {
		b.WriteString(msg[last:m[0]])
		b.WriteString(msg[m[2]:m[3]]) // the ": " before it
		last = m[1]
		line, _ := strconv.Atoi(msg[m[4]:m[5]])
		col, _ := strconv.Atoi(msg[m[6]:m[7]])
		tl, tc, p, ok := w.locate(line, col)
		if !ok {
			continue
		}
		if i == 0 && (m[0] == 0 || m[0] == len("panic") && strings.HasPrefix(msg, "panic: ")) {
			pe.line, pe.col, past = tl, tc, p
			continue
		}
		fmt.Fprintf(&b, "%d:%d: ", tl, tc)
	}
	b.WriteString(msg[last:])
	pe.msg = b.String()
	if past { // yaegi's own closing brace or parenthesis
		pe.msg = foundOwnToken.ReplaceAllString(pe.msg, "found the end of the input")
	}
	return pe
}

// foundOwnToken is a parse error's "found '}'" where the token is yaegi's or the session's.
var foundOwnToken = regexp.MustCompile(`found '[})]'`)

// unplaced is err without positions: for an error in source the session wrote itself (a
// declaration run in two steps, define.go), whose positions are in none of what was typed.
func unplaced(err error) error {
	return wrapped{}.mapError(err)
}

// restate is a new message for err at err's position.
func restate(err error, msg string) error {
	pe := &posError{msg: msg, err: err}
	if at, ok := err.(*posError); ok {
		pe.file, pe.line, pe.col = at.file, at.line, at.col
	}
	return pe
}

// msgOf is err's message after its position.
func msgOf(err error) string {
	if at, ok := err.(*posError); ok {
		return at.msg
	}
	return err.Error()
}

// words is err's message without any position (yaegi's words, for the brackets after a
// message said as Go says it).
func words(err error) string {
	return positionRe.ReplaceAllString(msgOf(err), "$1")
}

// inFile places err in a file: name:LINE:COL when err has a position, its line counted from
// the file's line first (1 for a Go file, whose source is evaluated whole), else name:first:
// before the message (name: when first is 0).
func inFile(name string, first int, err error) error {
	at, ok := err.(*posError)
	if !ok || at.line == 0 {
		if first > 0 {
			return fmt.Errorf("%s:%d: %w", name, first, err)
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	pe := *at
	pe.file = name
	pe.line += max(first, 1) - 1
	return &pe
}

// retyped is err, whose position is in rewritten (typed with inserts put in), with its
// position in typed: one inside an inserted text is put where the text was inserted.
func retyped(err error, rewritten, typed string, inserts []insert) error {
	at, ok := err.(*posError)
	if !ok || at.line == 0 {
		return err
	}
	pe := *at
	pe.line, pe.col = 0, 0
	off, ok := offsetOf(rewritten, at.line, at.col)
	if !ok {
		return &pe
	}
	shift := 0 // the inserted bytes before off
	for _, in := range inserts {
		start := in.at + shift
		if off < start {
			break
		}
		if off < start+len(in.text) {
			off = start + len(in.text) // inside it: where it was put in
		}
		shift += len(in.text)
	}
	pe.line, pe.col = lineCol(typed, off-shift)
	return &pe
}

// offsetOf is the byte offset of line:col (from 1) in s.
func offsetOf(s string, line, col int) (int, bool) {
	off := 0
	for l := 1; l < line; l++ {
		i := strings.IndexByte(s[off:], '\n')
		if i < 0 {
			return 0, false
		}
		off += i + 1
	}
	if end := strings.IndexByte(s[off:], '\n'); col < 1 || (end >= 0 && col-1 > end) || off+col-1 > len(s) {
		return 0, false
	}
	return off + col - 1, true
}

// lineCol is the line:col (from 1) of byte offset off in s.
func lineCol(s string, off int) (line, col int) {
	before := s[:off]
	return strings.Count(before, "\n") + 1, len(before) - strings.LastIndexByte(before, '\n')
}

// blank is s with every byte but line breaks a space.
func blank(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c != '\n' {
			b[i] = ' '
		}
	}
	return string(b)
}

// blankComments replaces src's comments by spaces (keeping their line breaks), so that an
// expression can be wrapped in a call with every other byte where it was typed.
func blankComments(src string) string {
	b := []byte(src)
	var s scanner.Scanner
	fset := token.NewFileSet()
	file := fset.AddFile("", fset.Base(), len(b))
	s.Init(file, b, nil, scanner.ScanComments)
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if tok != token.COMMENT {
			continue
		}
		start := file.Offset(pos)
		for i := start; i < start+len(lit) && i < len(b); i++ {
			if b[i] != '\n' {
				b[i] = ' '
			}
		}
	}
	return string(b)
}
