package gemini

import (
	"testing"

	"google.golang.org/genai"

	"github.com/mcpgen/mcpgen/runtime"
)

func TestSkillInstruction(t *testing.T) {
	if got := SkillInstruction(); got != nil {
		t.Errorf("SkillInstruction() = %+v, want nil", got)
	}
	if got := SkillInstruction(nil); got != nil {
		t.Errorf("SkillInstruction(nil) = %+v, want nil", got)
	}
	a := &runtime.LoadedSkill{Skill: runtime.Skill{Name: "a"}, Markdown: "---\nname: a\ndescription: A\n---\nDo a.\n"}
	b := &runtime.LoadedSkill{Skill: runtime.Skill{Name: "b"}, Markdown: "---\nname: b\ndescription: B\n---\nDo b.\n"}
	got := SkillInstruction(a, nil, b)
	if got == nil || got.Role != genai.RoleUser || len(got.Parts) != 2 {
		t.Fatalf("SkillInstruction(a, nil, b) = %+v", got)
	}
	if got.Parts[0].Text != a.Markdown || got.Parts[1].Text != b.Markdown {
		t.Errorf("parts = %q, %q", got.Parts[0].Text, got.Parts[1].Text)
	}
}
