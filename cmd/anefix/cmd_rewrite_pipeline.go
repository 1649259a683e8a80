package main

import (
	"fmt"

	"github.com/anefix/anefix/passes"
	"github.com/anefix/anefix/passes/rewrite"
)

// rwPrintPipeline is rewrite --print-pipeline: the pipeline the other
// flags build, as one string (passes.Pipeline.String) that --pipeline
// takes back; nothing is read or run.
func rwPrintPipeline(env *Env, o *rewriteFlags, args []string) error {
	if len(args) > 0 || o.Out != "" || o.DryRun {
		return usagef("--print-pipeline prints the pipeline and exits; drop IN, -o and --dry-run")
	}
	plan, err := rewrite.NewPlan(o.Options)
	if passes.IsUsage(err) {
		return withCode(exitUsage, err)
	} else if err != nil {
		return err
	}
	_, err = fmt.Fprintln(env.Stdout, plan.Pipeline.String())
	return err
}
