// Package backend reads the benchmark's data from Mongo and Redis, through one shared client
// (pooled) or a client made and closed inside each call (per-request).
//
// Every call is bounded by Timeout, so a backend that is down or stalls costs a request about a
// second and never blocks the server; the clients reconnect by themselves once it is back.
package backend

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Timeout bounds one backend call (connect, query and reply), well inside the contract's 2 s.
const Timeout = time.Second

// PoolSize caps the connections of one pooled client, the same cap as the Python stacks'
// (backends/pools.py), so that pooled comparisons hold the backend to the same load.
const PoolSize = 100

// ErrNotFound reports a missing user or key; any other error means the backend is unavailable.
var ErrNotFound = errors.New("not found")

// User is one document of collection "user".
type User struct {
	ID   int64  `bson:"id" json:"id"`
	Name string `bson:"name" json:"name"`
}

// Fortune is one document of collection "fortune" (TechEmpower's fortunes test).
type Fortune struct {
	ID      int64  `bson:"id"`
	Message string `bson:"message"`
}

// Fortunes reads every row of collection "fortune", in one query, each call (no cache).
type Fortunes interface {
	Fortunes(ctx context.Context) ([]Fortune, error)
}

// Users looks a user up by id.
type Users interface {
	User(ctx context.Context, id int64) (User, error)
}

// Names reads the value of Redis key "name".
type Names interface {
	Name(ctx context.Context) (string, error)
}

// Backends holds the ways to reach the data that the routes expose.
type Backends struct {
	MongoPooled     Users
	MongoPerRequest Users
	RedisPooled     Names
	RedisPerRequest Names
	Fortunes        Fortunes // on the pooled Mongo client

	closers []func(context.Context) error
}

// New makes the pooled clients without contacting either server, so a server starts whether or
// not its backends are up. Only malformed URLs are errors.
func New(mongoURL, redisURL string) (*Backends, error) {
	m, err := newMongo(mongoURL)
	if err != nil {
		return nil, fmt.Errorf("invalid --mongo-url: %w", err)
	}
	r, err := newRedis(redisURL)
	if err != nil {
		_ = m.close(context.Background())
		return nil, fmt.Errorf("invalid --redis-url: %w", err)
	}
	return &Backends{
		MongoPooled:     m.pooled,
		MongoPerRequest: m.perRequest,
		RedisPooled:     r.pooled,
		RedisPerRequest: r.perRequest,
		Fortunes:        m.pooled,
		closers:         []func(context.Context) error{m.close, r.close},
	}, nil
}

// Close releases the pooled clients.
func (b *Backends) Close(ctx context.Context) error {
	var errs []error
	for _, c := range b.closers {
		errs = append(errs, c(ctx))
	}
	return errors.Join(errs...)
}
