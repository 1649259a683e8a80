package main

// The input side of `anefix compile` and `anefix rewrite --compile`: the
// model is made into an .aimodel for coreaibuild, which runs the compiler.

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/anefix/anefix/coreaibuild"
	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/bundle"
	"github.com/anefix/anefix/graph/modelio"
)

// compilerEnv names another compiler binary for every compile anefix runs.
const compilerEnv = coreaibuild.EnvCompiler

// compileInput is a loaded input made ready for the compiler: the .aimodel
// directory to hand it, and the module for prediction and mapping.
type compileInput struct {
	Loaded  *modelio.Loaded
	AIModel string
	cleanup func()
}

func (c *compileInput) Close() {
	if c.cleanup != nil {
		c.cleanup()
	}
	c.Loaded.Close()
}

// prepareCompileInput loads path and, when it is not an .aimodel (or an LLM
// bundle holding one), writes the module into a temporary .aimodel, since
// coreai-build compiles .aimodel directories.
func prepareCompileInput(env *Env, path string, ignoreHash bool) (*compileInput, error) {
	ld, err := loadInput(env, path, ignoreHash)
	if err != nil {
		return nil, err
	}
	ci := &compileInput{Loaded: ld}
	switch ld.Input.Kind {
	case bundle.KindAIModel, bundle.KindLLMBundle:
		ci.AIModel = ld.Input.AIModelDir
		return ci, nil
	}
	tmp, err := coreaibuild.TempDir("anefix-aimodel-") // removed on a signal too
	if err != nil {
		ld.Close()
		return nil, err
	}
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	if path == "-" || base == "" || base == "." {
		base = "model"
	}
	ci.AIModel = filepath.Join(tmp, base+".aimodel")
	ci.cleanup = func() { coreaibuild.RemoveTemp(tmp) }
	if _, err := modelio.Save(ci.AIModel, ld.Module, ld, modelio.SaveOptions{}); err != nil {
		ci.Close()
		return nil, fmt.Errorf("preparing %s for the compiler: %w", path, err)
	}
	return ci, nil
}

func (c *compileInput) module() *graph.Module { return c.Loaded.Module }
