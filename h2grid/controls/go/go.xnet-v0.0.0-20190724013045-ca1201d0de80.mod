module refsuite/h2grid/controls/go

go 1.21

require golang.org/x/net v0.0.0-20190724013045-ca1201d0de80

require golang.org/x/text v0.3.0 // indirect
