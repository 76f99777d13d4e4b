# The Go servers where no registry is reachable (docker-compose.local.yml): the binaries built on
# the host (servers.core.command.build_go, staged into this context by compose/podman-setup.sh binaries),
# on the Debian base. Debian bookworm's Go (1.19) is too old to build them inside an image.
ARG BASE_IMAGE=localhost/refsuite-base
FROM ${BASE_IMAGE}
COPY echo gin nethttp fasthttp /app/bin/
USER 65532:65532
EXPOSE 8000
CMD ["/app/bin/nethttp", "--host", "0.0.0.0"]
