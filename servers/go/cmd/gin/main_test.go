package main

import (
	"testing"

	"refsuite/servers/go/internal/contracttest"
)

func TestContract(t *testing.T) { contracttest.Run(t, name, newHandler) }
