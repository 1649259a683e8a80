package bundle

import (
	"errors"
	"io/fs"
	"path/filepath"

	"github.com/anefix/anefix/graph/record"
)

// maxRecordSize bounds the record read whole (it lists ports, not weights).
const maxRecordSize = 16 << 20

// ReadRecord reads RecordFile (anefix's record of a rewrite, graph/record)
// from the .aimodel directory dir. It returns nil and no error when the
// file is absent (a model anefix did not write).
func ReadRecord(dir string) (*record.Record, error) {
	if dir == "" { // a single file has no record
		return nil, nil
	}
	p := filepath.Join(dir, RecordFile)
	b, err := readSmallFile(p, p, maxRecordSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return record.Parse(b, p)
}
