module github.com/anefix/anefix

go 1.26.8

require (
	github.com/samber/lo v1.53.0
	github.com/spf13/pflag v1.1.0
	google.golang.org/protobuf v1.36.12
	howett.net/plist v1.0.1
)

require golang.org/x/text v0.22.0 // indirect
