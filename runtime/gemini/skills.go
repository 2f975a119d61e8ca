package gemini

import (
	"google.golang.org/genai"

	"github.com/mcpgen/mcpgen/runtime"
)

// SkillInstruction returns a system instruction, for
// genai.GenerateContentConfig.SystemInstruction, that gives the model the
// SKILL.md of each skill, whole and as verified by runtime.Session.LoadSkill:
// one text part per skill, in the order given. It returns nil when there is
// no skill. The skills' other files are not included; read them with
// runtime.Session.ReadSkillFile when the model needs them.
func SkillInstruction(skills ...*runtime.LoadedSkill) *genai.Content {
	var parts []*genai.Part
	for _, sk := range skills {
		if sk == nil {
			continue
		}
		parts = append(parts, genai.NewPartFromText(sk.Markdown))
	}
	if len(parts) == 0 {
		return nil
	}
	return genai.NewContentFromParts(parts, genai.RoleUser)
}
