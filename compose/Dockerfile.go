# The Go servers (servers/go/cmd/{echo,gin,nethttp,fasthttp}) as static binaries in /app/bin/.
# Build from the repository root: docker build -f compose/Dockerfile.go .
# GO_IMAGE and RUNTIME_IMAGE: the builder and the runtime base, e.g. copies in a local registry.
# Without any registry, docker-compose.local.yml builds compose/local/Dockerfile.go instead.
ARG GO_IMAGE=golang:1.26
ARG RUNTIME_IMAGE=gcr.io/distroless/static-debian12:nonroot
FROM ${GO_IMAGE} AS build
WORKDIR /src
# Modules first, so a source change does not download them again.
COPY servers/go/go.mod servers/go/go.sum ./
RUN go mod download
COPY servers/go/ ./
# Static (no cgo), so they run on distroless/static with no libc.
RUN CGO_ENABLED=0 go build -trimpath -o /out/echo ./cmd/echo \
 && CGO_ENABLED=0 go build -trimpath -o /out/gin ./cmd/gin \
 && CGO_ENABLED=0 go build -trimpath -o /out/nethttp ./cmd/nethttp \
 && CGO_ENABLED=0 go build -trimpath -o /out/fasthttp ./cmd/fasthttp

FROM ${RUNTIME_IMAGE}
COPY --from=build /out/ /app/bin/
# distroless's nonroot user, numeric so a runtime can tell it is not root.
USER 65532:65532
EXPOSE 8000
CMD ["/app/bin/nethttp", "--host", "0.0.0.0"]
