// Package contract holds what every Go server shares about the route contract: the content
// types, the values the routes answer (serialized by each framework's own JSON helper inside each
// request), the id rule and the status a backend failure maps to, and the fortunes page's template
// (each command renders it with its framework's own call). No prebuilt bodies.
package contract

import (
	"embed"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"refsuite/servers/go/internal/backend"
)

// Content types, as the route contract spells them.
const (
	TextPlain = "text/plain; charset=utf-8"
	JSON      = "application/json"
	Hello     = "Hello, World!"
	HTML      = "text/html; charset=utf-8" // /fortunes: TechEmpower's verifier requires the charset
)

// AdditionalFortune is the row each /fortunes request adds (id 0) before sorting, TechEmpower's words.
const AdditionalFortune = "Additional fortune added at request time."

// Templates holds templates/fortunes.html, the html/template source every command parses once.
//
//go:embed templates/fortunes.html
var Templates embed.FS

// FortunesTemplate is the template's name in Templates (and once parsed).
const FortunesTemplate = "fortunes.html"

// WithAddedFortune adds the request's row to the rows read and sorts them by message. Go compares
// strings byte by byte, which for UTF-8 is code point order, the order TechEmpower checks.
func WithAddedFortune(rows []backend.Fortune) []backend.Fortune {
	rows = append(rows, backend.Fortune{ID: 0, Message: AdditionalFortune})
	slices.SortFunc(rows, func(a, b backend.Fortune) int { return strings.Compare(a.Message, b.Message) })
	return rows
}

// Message is the /json value: {"message":"Hello, World!"} once serialized.
type Message struct {
	Message string `json:"message"`
}

// HelloMessage is a new /json value; the handler serializes it in each request.
func HelloMessage() Message { return Message{Message: Hello} }

// Name is the /redis/... value.
type Name struct {
	Name string `json:"name"`
}

// Error is every error body: {"error":"not found"} and the like.
type Error struct {
	Error string `json:"error"`
}

var messages = map[int]string{
	http.StatusNotFound:            "not found",
	http.StatusMethodNotAllowed:    "method not allowed",
	http.StatusInternalServerError: "internal error",
	http.StatusServiceUnavailable:  "backend unavailable",
}

// ErrorFor is the error body of a status: the contract's message, else the reason phrase in lower case.
func ErrorFor(status int) Error {
	if m, ok := messages[status]; ok {
		return Error{Error: m}
	}
	return Error{Error: strings.ToLower(http.StatusText(status))}
}

// ParseID accepts ASCII decimal digits only (leading zeros allowed) with a value that fits in
// an int64. strconv alone would also take a sign or, with base 0, other bases.
func ParseID(s string) (int64, bool) {
	if s == "" {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	id, err := strconv.ParseInt(s, 10, 64)
	return id, err == nil
}

// BackendStatus maps a backend error to its status: 404 for a miss, 503 for anything else (a
// backend that is down, slow or misbehaving is the backend's problem, not the client's).
func BackendStatus(err error) int {
	if errors.Is(err, backend.ErrNotFound) {
		return http.StatusNotFound
	}
	return http.StatusServiceUnavailable
}
