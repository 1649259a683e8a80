package main

import "fmt"

// rwPrintPipeline is rewrite --print-pipeline: the pipeline the other
// flags build, as one string (passes.Pipeline.String) that --pipeline
// takes back; nothing is read or run.
func rwPrintPipeline(env *Env, o *rewriteFlags, args []string) error {
	if len(args) > 0 || o.out != "" || o.dryRun {
		return usagef("--print-pipeline prints the pipeline and exits; drop IN, -o and --dry-run")
	}
	pl, _, err := rwBuildPipeline(o)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(env.Stdout, pl.String())
	return err
}
