package providertest

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/mcpgen/mcpgen/runtime"
)

// LoadTools reads the tools of a JSON file holding a tools/list response
// ({"result":{"tools":[...]}}) or a bare {"tools":[...]} object. Each tool
// keeps its raw bytes.
func LoadTools(path string) ([]runtime.Tool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Result struct {
			Tools []json.RawMessage `json:"tools"`
		} `json:"result"`
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	raws := append(doc.Result.Tools, doc.Tools...)
	tools := make([]runtime.Tool, len(raws))
	for i, r := range raws {
		if err := json.Unmarshal(r, &tools[i]); err != nil {
			return nil, fmt.Errorf("reading %s: tool %d: %w", path, i, err)
		}
		tools[i].Raw = r
	}
	return tools, nil
}

// SurveyTools is the path, from a package directory two levels below the
// module root, of a tool list with one tool per schema construct and name
// shape of the survey in the design notes.
const SurveyTools = "../../internal/testing/providertest/testdata/survey-tools.json"
