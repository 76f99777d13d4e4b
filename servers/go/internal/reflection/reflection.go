// Package reflection renders the reflection route's answer for the Go parser owners (nethttp,
// fasthttp) as servers/apps/reflection.py renders it for the Python ones: each command reads the
// request its server's way, and this package turns what it read into the X-Reflect header (method,
// version, body length and SHA-256, target SHA-256: the same bytes as the Python apps') and the JSON
// body (the same fields and values; json.Marshal's escaping, not json.dumps').
package reflection

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
)

// Header is the response header that carries the reflection's summary, on HEAD answers too.
const Header = "X-Reflect"

// Path is the reflection route: this path, or any path under it.
const Path = "/reflect"

// IsReflect tells whether a request path (without its query) is the reflection route.
func IsReflect(path string) bool { return path == Path || strings.HasPrefix(path, Path+"/") }

// Reflection is what the server handed the handler.
type Reflection struct {
	Interface  string
	Method     string
	Target     string
	Version    string
	Headers    [][2]string // in the order and form the server gives them
	Body       []byte
	TargetFrom string // what of the server's API the target came from
}

// Field is one field of X-Reflect: each byte outside '!'..'~' as %XX, "-" for an empty one.
func Field(s string) string {
	if s == "" {
		return "-"
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x21 && c <= 0x7E {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// XReflect is the X-Reflect header's value: "<method> <version> <body_length> <body_sha256> <target_sha256>".
func (r Reflection) XReflect() string {
	return fmt.Sprintf("%s %s %d %s %s", Field(r.Method), Field(r.Version), len(r.Body), digest(r.Body),
		digest([]byte(r.Target)))
}

// latin1 maps each byte to the code point of the same value, as the Python apps decode what the
// server gives as bytes (json.Marshal would turn invalid UTF-8 into U+FFFD).
func latin1(s string) string {
	runes := make([]rune, len(s))
	for i := 0; i < len(s); i++ {
		runes[i] = rune(s[i])
	}
	return string(runes)
}

type document struct {
	Interface  string      `json:"interface"`
	Method     string      `json:"method"`
	Target     string      `json:"target"`
	Version    string      `json:"version"`
	Headers    [][2]string `json:"headers"`
	BodyLength int         `json:"body_length"`
	BodySHA256 string      `json:"body_sha256"`
	TargetFrom string      `json:"target_from"`
}

// JSON is the reflection's body.
func (r Reflection) JSON() ([]byte, error) {
	headers := make([][2]string, len(r.Headers))
	for i, h := range r.Headers {
		headers[i] = [2]string{latin1(h[0]), latin1(h[1])}
	}
	return json.Marshal(document{Interface: r.Interface, Method: latin1(r.Method), Target: latin1(r.Target),
		Version: latin1(r.Version), Headers: headers, BodyLength: len(r.Body), BodySHA256: digest(r.Body),
		TargetFrom: r.TargetFrom})
}
