module refsuite/h2grid/controls/go

go 1.21

require golang.org/x/net v0.0.0-20190813141303-74dc4d7220e7

require golang.org/x/text v0.3.0 // indirect
