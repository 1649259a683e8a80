// Package proto holds anefix's report schema: one .proto file per concern,
// package anefix.v1, with generated Go code committed in anefixpb.
//
// Regenerate after editing any .proto file (needs protoc and
// protoc-gen-go v1.36.12 on PATH; .ci/run installs both):
//
//	go generate ./proto/...
//
// It then writes the JSON Schema of the reports, schema/anefix.schema.json
// (proto/jsonschema, from the code just generated). gen_test.go fails when
// the committed code is stale, proto/jsonschema's test when the schema is.
package proto

//go:generate go run ./internal/genpb -proto . -out anefixpb
//go:generate go run ./internal/genschema -out schema/anefix.schema.json
