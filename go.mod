module github.com/anefix/anefix

go 1.26.8

require (
	github.com/spf13/pflag v1.1.0
	google.golang.org/protobuf v1.36.12
	howett.net/plist v1.0.1
)
