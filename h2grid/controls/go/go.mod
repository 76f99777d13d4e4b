module refsuite/h2grid/controls/go

go 1.21

require golang.org/x/net v0.23.0

require golang.org/x/text v0.14.0 // indirect
