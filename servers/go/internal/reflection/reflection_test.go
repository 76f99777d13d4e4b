package reflection

import (
	"encoding/json"
	"testing"
)

func TestFieldEncodesOutsidePrintableASCII(t *testing.T) {
	for in, want := range map[string]string{"GET": "GET", "": "-", "G T": "G%20T", "a\x00\xff": "a%00%FF"} {
		if got := Field(in); got != want {
			t.Errorf("Field(%q) = %q, want %q", in, got, want)
		}
	}
}

// The header servers/apps/reflection.py renders for the same request (its answer() for these values).
func TestXReflectIsThePythonApps(t *testing.T) {
	r := Reflection{Interface: "go", Method: "POST", Target: "/reflect?a=b", Version: "HTTP/1.1",
		Headers: [][2]string{{"X-Probe", "caf\xe9"}}, Body: []byte("hello"), TargetFrom: "RequestURI"}
	want := "POST HTTP/1.1 5 2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824 " +
		"f11162e3c9bfb8c78691ea2f8ac2f43884a680fc60efe4ffde2c892e1ba932a4"
	if got := r.XReflect(); got != want {
		t.Errorf("XReflect() = %q, want %q", got, want)
	}
	body, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	// a byte the server gave is the code point of its value (latin-1), as the Python apps decode it
	if doc["headers"].([]any)[0].([]any)[1] != "caf\u00e9" || doc["body_length"].(float64) != 5 ||
		doc["target_from"] != "RequestURI" {
		t.Errorf("JSON() = %s", body)
	}
}
