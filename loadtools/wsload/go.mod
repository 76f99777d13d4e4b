module refsuite/loadtools/wsload

go 1.26.0

require github.com/coder/websocket v1.8.14
