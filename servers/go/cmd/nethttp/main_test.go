package main

import (
	"testing"

	"refsuite/servers/go/internal/cli"
	"refsuite/servers/go/internal/contracttest"
)

func TestContract(t *testing.T) { contracttest.Run(t, name, newHandler) }

func TestReflect(t *testing.T) { contracttest.Reflect(t, cli.HTTPServer(newHandler)) }
