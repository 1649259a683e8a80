package compiler

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/anefix/anefix/graph/bundle"
	"github.com/anefix/anefix/graph/modelio"
)

// input is a loaded model made ready for the compiler: the .aimodel
// directory to hand it (the input's own, or a temporary one).
type input struct {
	Loaded  *modelio.Loaded
	AIModel string
	cleanup func()
}

// Close removes the temporary .aimodel (if any) and closes the input.
func (c *input) Close() {
	if c.cleanup != nil {
		c.cleanup()
	}
	c.Loaded.Close()
}

// PrepareInput takes over ld, loaded from path, and, when it is not an
// .aimodel (or an LLM bundle holding one), writes its module into a
// temporary .aimodel (removed by Close, or by Stop on a signal), since
// coreai-build compiles .aimodel directories. On error ld is closed.
func PrepareInput(ld *modelio.Loaded, path string) (*input, error) {
	ci := &input{Loaded: ld}
	switch ld.Input.Kind {
	case bundle.KindAIModel, bundle.KindLLMBundle:
		ci.AIModel = ld.Input.AIModelDir
		return ci, nil
	}
	tmp, err := tempDir("anefix-aimodel-")
	if err != nil {
		ld.Close()
		return nil, err
	}
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	if path == "-" || base == "" || base == "." {
		base = "model"
	}
	ci.AIModel = filepath.Join(tmp, base+".aimodel")
	ci.cleanup = func() { removeTemp(tmp) }
	if _, err := modelio.Save(ci.AIModel, ld.Module, ld, modelio.SaveOptions{}); err != nil {
		ci.Close()
		return nil, fmt.Errorf("preparing %s for the compiler: %w", path, err)
	}
	return ci, nil
}
