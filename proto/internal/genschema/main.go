// Command genschema writes proto/jsonschema's schema of the reports to
// proto/schema/anefix.schema.json (go generate ./proto, after genpb).
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/anefix/anefix/graph/bundle"
	"github.com/anefix/anefix/proto/jsonschema"
)

func main() {
	out := flag.String("out", "schema/anefix.schema.json", "file to write")
	flag.Parse()
	b, err := jsonschema.Generate()
	if err == nil {
		err = bundle.WriteFile(*out, b, true, nil)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "genschema:", err)
		os.Exit(1)
	}
}
