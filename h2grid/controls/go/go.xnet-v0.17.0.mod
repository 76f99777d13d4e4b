module refsuite/h2grid/controls/go

go 1.21

require golang.org/x/net v0.17.0

require golang.org/x/text v0.13.0 // indirect
