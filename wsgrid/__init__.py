"""The WebSocket probe bed (docs/websockets.md): raw frames, a faulty and a correct server, bounded attack
probes judged held, degraded or down."""
