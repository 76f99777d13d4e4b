package contract

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"refsuite/servers/go/internal/backend"
)

func TestParseID(t *testing.T) {
	ok := map[string]int64{
		"0": 0, "1": 1, "007": 7, "0000000000000000000000001": 1,
		"9223372036854775807": 9223372036854775807,
	}
	for s, want := range ok {
		if got, good := ParseID(s); !good || got != want {
			t.Errorf("ParseID(%q) = %d, %v; want %d, true", s, got, good, want)
		}
	}
	for _, s := range []string{"", "abc", "-1", "+1", "1.5", "1e3", "0x1", "0b1", "1_000", " 1", "1 ",
		"１", "٣", "99999999999999999999999", "9223372036854775808", "18446744073709551615"} {
		if got, good := ParseID(s); good {
			t.Errorf("ParseID(%q) = %d, true; want false", s, got)
		}
	}
}

func TestValuesSerializeToTheContractBytes(t *testing.T) {
	cases := []struct {
		value any
		want  string
	}{
		{HelloMessage(), `{"message":"Hello, World!"}`},
		{Name{Name: "v"}, `{"name":"v"}`},
		{backend.User{ID: 42, Name: "n"}, `{"id":42,"name":"n"}`},
		{ErrorFor(http.StatusNotFound), `{"error":"not found"}`},
		{ErrorFor(http.StatusMethodNotAllowed), `{"error":"method not allowed"}`},
		{ErrorFor(http.StatusInternalServerError), `{"error":"internal error"}`},
		{ErrorFor(http.StatusServiceUnavailable), `{"error":"backend unavailable"}`},
		{ErrorFor(http.StatusBadRequest), `{"error":"bad request"}`},
	}
	for _, c := range cases {
		b, err := json.Marshal(c.value)
		if err != nil || string(b) != c.want {
			t.Errorf("json.Marshal(%#v) = %s, %v; want %s", c.value, b, err, c.want)
		}
	}
}

func TestBackendStatus(t *testing.T) {
	cases := []struct {
		err    error
		status int
	}{
		{backend.ErrNotFound, http.StatusNotFound},
		{errors.Join(errors.New("x"), backend.ErrNotFound), http.StatusNotFound},
		{context.DeadlineExceeded, http.StatusServiceUnavailable},
		{errors.New("connection refused"), http.StatusServiceUnavailable},
	}
	for _, c := range cases {
		if got := BackendStatus(c.err); got != c.status {
			t.Errorf("BackendStatus(%v) = %d; want %d", c.err, got, c.status)
		}
	}
}
