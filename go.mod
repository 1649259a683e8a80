module github.com/anefix/anefix

go 1.26.8

require (
	github.com/samber/lo v1.53.0 // indirect
	github.com/spf13/pflag v1.1.0 // indirect
	golang.org/x/text v0.22.0 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)
