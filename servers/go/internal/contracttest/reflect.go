package contracttest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"refsuite/servers/go/internal/backend"
	"refsuite/servers/go/internal/cli"
)

// Reflect checks the reflection route of a parser owner (nethttp, fasthttp) over real HTTP: a
// POST's method, target, version, body and a header field come back in X-Reflect and the JSON
// body; a HEAD gets X-Reflect and no body. (tests/test_reflection.py holds every owner, Go and
// Python, to the framing cases; this is the command's own check.)
func Reflect(t *testing.T, build cli.BuildServer) {
	srv := start(t, build(&backend.Backends{}))
	req, _ := http.NewRequest("POST", srv.URL+"/reflect/x?a=b", strings.NewReader("hello"))
	req.Header.Set("X-Probe", "value")
	res, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	sum := func(s string) string { d := sha256.Sum256([]byte(s)); return hex.EncodeToString(d[:]) }
	want := "POST HTTP/1.1 5 " + sum("hello") + " " + sum("/reflect/x?a=b")
	if res.StatusCode != 200 || res.Header.Get("X-Reflect") != want {
		t.Errorf("POST /reflect/x?a=b: %d X-Reflect %q, want 200 %q", res.StatusCode, res.Header.Get("X-Reflect"), want)
	}
	var doc struct {
		Interface, Method, Target, Version string
		Headers                            [][2]string
		BodyLength                         int `json:"body_length"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatalf("reflection body %q: %v", body, err)
	}
	probe := false
	for _, h := range doc.Headers {
		probe = probe || (h == [2]string{"X-Probe", "value"})
	}
	if doc.Interface != "go" || doc.Method != "POST" || doc.Target != "/reflect/x?a=b" || doc.BodyLength != 5 || !probe {
		t.Errorf("reflection %+v: want go, POST, /reflect/x?a=b, 5 bytes, X-Probe: value among the headers", doc)
	}
	res, body = do(t, srv.Client(), "HEAD", srv.URL+"/reflect")
	if res.StatusCode != 200 || len(body) != 0 || !strings.HasPrefix(res.Header.Get("X-Reflect"), "HEAD HTTP/1.1 0 ") {
		t.Errorf("HEAD /reflect: %d %q X-Reflect %q, want 200, no body, X-Reflect", res.StatusCode, body,
			res.Header.Get("X-Reflect"))
	}
}
