// Package contract holds what every Go server answers, byte for byte, so that each command only
// maps its framework's routing onto these functions.
package contract

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	"refsuite/servers/go/internal/backend"
)

// Content types, as the route contract spells them.
const (
	TextPlain = "text/plain; charset=utf-8"
	JSON      = "application/json"
)

// Fixed bodies. None ends in a newline: json.Encoder and some frameworks' JSON helpers add one.
var (
	Hello            = []byte("Hello, World!")
	NotFound         = []byte(`{"error":"not found"}`)
	MethodNotAllowed = []byte(`{"error":"method not allowed"}`)
	Unavailable      = []byte(`{"error":"backend unavailable"}`)
	Internal         = []byte(`{"error":"internal error"}`)
)

type message struct {
	Message string `json:"message"`
}

// HelloJSON serializes the /json body on every call, since measuring serialization is the
// point of that route.
func HelloJSON() []byte {
	b, _ := json.Marshal(message{Message: "Hello, World!"})
	return b
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

// User answers /mongo/{pooled,per-request}/{id} as a status and a JSON body.
func User(ctx context.Context, users backend.Users, rawID string) (int, []byte) {
	id, ok := ParseID(rawID)
	if !ok {
		return http.StatusNotFound, NotFound
	}
	u, err := users.User(ctx, id)
	if err != nil {
		return backendError(err)
	}
	b, err := json.Marshal(u)
	if err != nil {
		return http.StatusInternalServerError, Internal
	}
	return http.StatusOK, b
}

type name struct {
	Name string `json:"name"`
}

// Name answers /redis/{pooled,per-request} as a status and a JSON body.
func Name(ctx context.Context, names backend.Names) (int, []byte) {
	v, err := names.Name(ctx)
	if err != nil {
		return backendError(err)
	}
	b, err := json.Marshal(name{Name: v})
	if err != nil {
		return http.StatusInternalServerError, Internal
	}
	return http.StatusOK, b
}

// backendError maps every failure but a miss to 503: a backend that is down, slow or
// misbehaving is the backend's problem, not the client's.
func backendError(err error) (int, []byte) {
	if errors.Is(err, backend.ErrNotFound) {
		return http.StatusNotFound, NotFound
	}
	return http.StatusServiceUnavailable, Unavailable
}

// Write sends a complete response; net/http adds Content-Length and Date because the body is
// written in one call before the handler returns.
func Write(w http.ResponseWriter, status int, contentType string, body []byte) {
	w.Header().Set("Content-Type", contentType)
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
