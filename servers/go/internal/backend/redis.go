package backend

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"
)

const nameKey = "name"

type redisBackend struct {
	pooled     pooledRedis
	perRequest perRequestRedis
}

func newRedis(url string) (*redisBackend, error) {
	setLogger.Do(func() { redis.SetLogger(&sparseLogger{every: 10 * time.Second}) })
	opt, err := redis.ParseURL(url)
	if err != nil {
		return nil, err
	}
	opt.DialTimeout = Timeout
	opt.ReadTimeout = Timeout
	opt.WriteTimeout = Timeout
	opt.PoolTimeout = Timeout
	opt.PoolSize = PoolSize
	// Without this, go-redis ignores the request's deadline and waits on its own timeouts.
	opt.ContextTimeoutEnabled = true
	// Maintenance notifications are a Redis Enterprise/Cloud feature; in the default "auto" mode
	// every new connection spends a round trip on a command a plain redis-server rejects.
	opt.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}

	one := *opt
	one.PoolSize = 1
	one.PipelinePoolSize = -1 // no second pool for pipelines: one connection, nothing more
	return &redisBackend{
		pooled:     pooledRedis{client: redis.NewClient(opt)},
		perRequest: perRequestRedis{opt: &one},
	}, nil
}

func (r *redisBackend) close(context.Context) error { return r.pooled.client.Close() }

type pooledRedis struct{ client *redis.Client }

func (p pooledRedis) Name(ctx context.Context) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	return getName(ctx, p.client)
}

type perRequestRedis struct{ opt *redis.Options }

func (p perRequestRedis) Name(ctx context.Context) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	client := redis.NewClient(p.opt) // NewClient copies the options it is given
	defer client.Close()
	return getName(ctx, client)
}

func getName(ctx context.Context, client *redis.Client) (string, error) {
	v, err := client.Get(ctx, nameKey).Result()
	if errors.Is(err, redis.Nil) {
		return "", ErrNotFound
	}
	return v, err
}

var setLogger sync.Once

// sparseLogger keeps go-redis's diagnostics but not one per request: with Redis down, the
// driver logs every failed dial, which under load would flood stderr and cost the server CPU.
type sparseLogger struct {
	every time.Duration
	mu    sync.Mutex
	last  time.Time
	quiet int
}

func (l *sparseLogger) Printf(_ context.Context, format string, v ...any) {
	l.mu.Lock()
	now := time.Now()
	if now.Sub(l.last) < l.every {
		l.quiet++
		l.mu.Unlock()
		return
	}
	quiet := l.quiet
	l.last, l.quiet = now, 0
	l.mu.Unlock()
	msg := fmt.Sprintf(format, v...)
	if quiet > 0 {
		msg += fmt.Sprintf(" (%d earlier messages suppressed)", quiet)
	}
	fmt.Fprintf(os.Stderr, "%s go-redis: %s\n", now.UTC().Format(time.RFC3339), msg)
}
