// Package proto holds anefix's report schema: one .proto file per concern,
// package anefix.v1, with generated Go code committed in anefixpb.
//
// Regenerate after editing any .proto file (needs protoc and
// protoc-gen-go v1.36.12 on PATH; .ci/run installs both):
//
//	go generate ./proto/...
//
// gen_test.go fails when the committed code is stale.
package proto

//go:generate go run ./internal/genpb -proto . -out anefixpb
