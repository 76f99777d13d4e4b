// Command h2control is the HTTP/2 grid's Go control server: GET / and the reflection route served by
// golang.org/x/net/http2 itself (http2.ConfigureServer over TLS, h2c.NewHandler in cleartext), never by
// net/http's bundled copy, so the x/net version its go.<name>.mod pins is the HTTP/2 that answers.
// Built once per pin (before and after each upstream fix) by h2grid/controls/gocontrol.py.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"strings"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/h2c"
)

// xnetVersion is the golang.org/x/net this binary was built with, from its build info.
func xnetVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == "golang.org/x/net" {
				return dep.Version
			}
		}
	}
	return "unknown"
}

func hello(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain")
	w.Write([]byte("Hello, World!"))
}

// reflect answers the request's fields as JSON: the work the grid's probes ask of a server (a large
// answer built per request), as servers/apps/reflection.py does.
func reflect(w http.ResponseWriter, r *http.Request) {
	fields := make([][2]string, 0, len(r.Header))
	for name, values := range r.Header {
		for _, v := range values {
			fields = append(fields, [2]string{strings.ToLower(name), v})
		}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"method": r.Method, "target": r.URL.RequestURI(),
		"version": r.Proto, "headers": fields})
}

func main() {
	port := flag.Int("port", 0, "loopback port")
	certfile := flag.String("certfile", "", "serve h2 over TLS with this certificate (else h2c)")
	keyfile := flag.String("keyfile", "", "and this key")
	version := flag.Bool("version", false, "print the golang.org/x/net version and exit")
	flag.Parse()
	if *version {
		fmt.Println(xnetVersion())
		return
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/", hello)
	mux.HandleFunc("/reflect", reflect)
	h2 := &http2.Server{}
	srv := &http.Server{Handler: mux, ErrorLog: log.New(os.Stderr, "", log.LstdFlags)}
	listener, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", *port))
	if err != nil {
		log.Fatal(err)
	}
	scheme := "http"
	if *certfile != "" {
		scheme = "https"
		if err := http2.ConfigureServer(srv, h2); err != nil {
			log.Fatal(err)
		}
	} else {
		srv.Handler = h2c.NewHandler(mux, h2)
	}
	fmt.Printf("listening on %s://%s (h2control x/net %s, 1 workers)\n", scheme, listener.Addr(), xnetVersion())
	if scheme == "https" {
		err = srv.ServeTLS(listener, *certfile, *keyfile)
	} else {
		err = srv.Serve(listener)
	}
	log.Fatal(err)
}
