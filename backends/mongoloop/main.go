// Command mongoloop measures what a MongoDB-protocol server serves alone: `-concurrency` goroutines
// share one pooled client (the official Go driver) and each loops find_one({"id": n}) over random
// ids 1..-users for -duration, as the stacks' pooled routes do; with -query fortunes each reads the
// whole -collection instead (find({}) to the last document), as /fortunes does. It prints one JSON line.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	neturl "net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

type report struct {
	Requests    int64   `json:"requests"`
	Errors      int64   `json:"errors"`
	Misses      int64   `json:"misses"`
	Seconds     float64 `json:"seconds"`
	RequestsPS  float64 `json:"requests_per_s"`
	Concurrency int     `json:"concurrency"`
	FirstError  string  `json:"first_error,omitempty"`
}

func main() {
	url := flag.String("url", "mongodb://127.0.0.1:27017/test", "MongoDB URL; its database holds the collection")
	collection := flag.String("collection", "user", "collection of {id, name} documents")
	concurrency := flag.Int("concurrency", 50, "concurrent lookups (goroutines sharing one client pool)")
	duration := flag.Duration("duration", 3*time.Second, "how long to measure")
	users := flag.Int("users", 10000, "lookup ids are drawn from 1..users")
	query := flag.String("query", "lookup", "lookup: find_one by random id; fortunes: find({}) of the whole collection")
	flag.Parse()

	if err := run(*url, *collection, *query, *concurrency, *duration, *users); err != nil {
		fmt.Fprintf(os.Stderr, "mongoloop: %s\n", err)
		os.Exit(1)
	}
}

func run(url, collName, query string, concurrency int, duration time.Duration, users int) error {
	if concurrency < 1 || users < 1 {
		return errors.New("-concurrency and -users must be at least 1")
	}
	if query != "lookup" && query != "fortunes" {
		return fmt.Errorf("-query %q: lookup or fortunes", query)
	}

	opts := options.Client().ApplyURI(url).
		SetMaxPoolSize(uint64(concurrency)).
		SetTimeout(5 * time.Second)

	client, err := mongo.Connect(opts)
	if err != nil {
		return err
	}
	defer client.Disconnect(context.Background())

	dbName := "test"
	if u, perr := neturl.Parse(url); perr == nil && strings.Trim(u.Path, "/") != "" {
		dbName = strings.Trim(u.Path, "/")
	}

	coll := client.Database(dbName).Collection(collName)
	projection := options.FindOne().SetProjection(bson.D{{Key: "_id", Value: 0}, {Key: "id", Value: 1}, {Key: "name", Value: 1}})

	// One request as the loop asks it: the whole collection (fortunes), or a find_one by id.
	readAll := func() error {
		cursor, err := coll.Find(context.Background(), bson.D{})
		if err != nil {
			return err
		}
		var rows []bson.M
		if err = cursor.All(context.Background(), &rows); err != nil {
			return err
		}
		if len(rows) == 0 {
			return mongo.ErrNoDocuments
		}
		return nil
	}
	ask := func(id int) error {
		if query == "fortunes" {
			return readAll()
		}
		return coll.FindOne(context.Background(), bson.D{{Key: "id", Value: id}}, projection).Err()
	}

	// One request first: a server that does not answer fails here, not as a rate of errors.
	if err = ask(1); err != nil && !errors.Is(err, mongo.ErrNoDocuments) {
		return err
	}

	var requests, failures, misses atomic.Int64
	var firstError atomic.Value
	stop := time.Now().Add(duration)
	started := time.Now()

	var wg sync.WaitGroup
	for range concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(stop) {
				id := rand.IntN(users) + 1
				err := ask(id)
				switch {
				case err == nil:
					requests.Add(1)
				case errors.Is(err, mongo.ErrNoDocuments):
					requests.Add(1)
					misses.Add(1)
				default:
					failures.Add(1)
					firstError.CompareAndSwap(nil, err.Error())
				}
			}
		}()
	}
	wg.Wait()

	seconds := time.Since(started).Seconds()
	r := report{
		Requests: requests.Load(), Errors: failures.Load(), Misses: misses.Load(),
		Seconds: seconds, RequestsPS: float64(requests.Load()) / seconds, Concurrency: concurrency,
	}
	if msg, ok := firstError.Load().(string); ok {
		r.FirstError = msg
	}

	return json.NewEncoder(os.Stdout).Encode(r)
}
