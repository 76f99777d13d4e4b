package contract

import (
	"context"
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

func TestBodies(t *testing.T) {
	if got := string(HelloJSON()); got != `{"message":"Hello, World!"}` {
		t.Errorf("HelloJSON() = %q", got)
	}
	if string(Hello) != "Hello, World!" {
		t.Errorf("Hello = %q", Hello)
	}
}

type users struct{ err error }

func (u users) User(_ context.Context, id int64) (backend.User, error) {
	return backend.User{ID: id, Name: "n"}, u.err
}

type names struct{ err error }

func (n names) Name(context.Context) (string, error) { return "v", n.err }

func TestBackendErrors(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		err    error
		status int
		body   string
	}{
		{nil, http.StatusOK, ""},
		{backend.ErrNotFound, http.StatusNotFound, `{"error":"not found"}`},
		{errors.Join(errors.New("x"), backend.ErrNotFound), http.StatusNotFound, `{"error":"not found"}`},
		{context.DeadlineExceeded, http.StatusServiceUnavailable, `{"error":"backend unavailable"}`},
		{errors.New("connection refused"), http.StatusServiceUnavailable, `{"error":"backend unavailable"}`},
	}
	for _, c := range cases {
		status, body := User(ctx, users{c.err}, "42")
		if c.err == nil {
			c.body = `{"id":42,"name":"n"}`
		}
		if status != c.status || string(body) != c.body {
			t.Errorf("User with %v = %d %s; want %d %s", c.err, status, body, c.status, c.body)
		}
		status, body = Name(ctx, names{c.err})
		if c.err == nil {
			c.body = `{"name":"v"}`
		}
		if status != c.status || string(body) != c.body {
			t.Errorf("Name with %v = %d %s; want %d %s", c.err, status, body, c.status, c.body)
		}
	}
	if status, body := User(ctx, users{}, "x"); status != 404 || string(body) != `{"error":"not found"}` {
		t.Errorf("User(x) = %d %s", status, body)
	}
}
