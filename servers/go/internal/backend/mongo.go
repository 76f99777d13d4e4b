package backend

import (
	"context"
	"errors"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/connstring"
)

const (
	defaultDB         = "test"
	userCollection    = "user"
	fortuneCollection = "fortune"
)

var (
	projection  = bson.D{{Key: "_id", Value: 0}, {Key: "id", Value: 1}, {Key: "name", Value: 1}}
	findOpts    = options.FindOne().SetProjection(projection)
	fortuneOpts = options.Find().SetProjection(bson.D{{Key: "_id", Value: 0}, {Key: "id", Value: 1}, {Key: "message", Value: 1}})
)

type mongoBackend struct {
	pooled     pooledMongo
	perRequest perRequestMongo
	client     *mongo.Client
}

// mongoConfig builds client options afresh for each client: the driver keeps the options
// struct it is given, so clients never share one.
type mongoConfig struct {
	url string
	db  string
}

func (c mongoConfig) options() *options.ClientOptions {
	// The driver's defaults (30 s server selection, 30 s connect) would hold a request far past
	// the contract's 2 s when the server is down.
	return options.Client().ApplyURI(c.url).
		SetServerSelectionTimeout(Timeout).
		SetConnectTimeout(Timeout).
		SetMaxPoolSize(PoolSize)
}

func newMongo(url string) (*mongoBackend, error) {
	cs, err := connstring.ParseAndValidate(url)
	if err != nil {
		return nil, err
	}
	cfg := mongoConfig{url: url, db: cs.Database}
	if cfg.db == "" {
		cfg.db = defaultDB
	}
	// Connect only starts the monitors in the background; it does not wait for the server.
	client, err := mongo.Connect(cfg.options())
	if err != nil {
		return nil, err
	}
	return &mongoBackend{
		pooled: pooledMongo{coll: client.Database(cfg.db).Collection(userCollection),
			fortunes: client.Database(cfg.db).Collection(fortuneCollection)},
		perRequest: perRequestMongo{cfg: cfg},
		client:     client,
	}, nil
}

func (m *mongoBackend) close(ctx context.Context) error { return m.client.Disconnect(ctx) }

type pooledMongo struct{ coll, fortunes *mongo.Collection }

// Fortunes reads the whole fortune collection with one find, its cursor read to the end.
func (p pooledMongo) Fortunes(ctx context.Context) ([]Fortune, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	cur, err := p.fortunes.Find(ctx, bson.D{}, fortuneOpts)
	if err != nil {
		return nil, err
	}
	var rows []Fortune
	if err := cur.All(ctx, &rows); err != nil {
		return nil, err
	}
	return rows, nil
}

func (p pooledMongo) User(ctx context.Context, id int64) (User, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	return findUser(ctx, p.coll, id)
}

type perRequestMongo struct{ cfg mongoConfig }

func (p perRequestMongo) User(ctx context.Context, id int64) (user User, err error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	client, err := mongo.Connect(p.cfg.options())
	if err != nil {
		return User{}, err
	}
	defer func() {
		// Disconnect even when the query used up the request's deadline, or the client's
		// monitor goroutines and sockets would leak. It sends endSessions first, so bound it.
		dctx, dcancel := context.WithTimeout(context.WithoutCancel(ctx), Timeout/2)
		if err == nil || errors.Is(err, ErrNotFound) {
			defer dcancel()
			_ = client.Disconnect(dctx)
			return
		}
		// After a failure Disconnect also waits for a monitor still stuck in its handshake
		// (up to the connect timeout): finish closing in the background, the 503 is due now.
		go func() {
			defer dcancel()
			_ = client.Disconnect(dctx)
		}()
	}()
	return findUser(ctx, client.Database(p.cfg.db).Collection(userCollection), id)
}

func findUser(ctx context.Context, coll *mongo.Collection, id int64) (User, error) {
	var u User
	err := coll.FindOne(ctx, bson.D{{Key: "id", Value: id}}, findOpts).Decode(&u)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return User{}, ErrNotFound
	}
	return u, err
}
