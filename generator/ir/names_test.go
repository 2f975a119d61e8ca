package ir

import "testing"

func TestExported(t *testing.T) {
	for in, want := range map[string]string{
		"list-events":    "ListEvents",
		"light.turn_on":  "LightTurnOn",
		"HassTurnOn":     "HassTurnOn",
		"get_user_id":    "GetUserID",
		"parseURL":       "ParseURL",
		"HTTPServer":     "HTTPServer",
		"elicit (form)":  "ElicitForm",
		"{{userName}}":   "UserName",
		"$schema":        "Schema",
		"5m":             "X5m",
		"123":            "X123",
		"type":           "Type",
		"日本語":            "X日本語",
		"ünïcödé":        "Ünïcödé",
		"*/":             "Fallback",
		"":               "Fallback",
		"json_api_token": "JSONAPIToken",
	} {
		if got := Exported(in, "Fallback"); got != want {
			t.Errorf("Exported(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestValueName(t *testing.T) {
	for in, want := range map[string]string{
		"up": "Up", "-1": "Minus1", "+1": "Plus1", "-timestamp": "MinusTimestamp",
		"5m": "5m", "*/*": "", "1.5": "1Dot5", "media_player": "MediaPlayer",
	} {
		if got := valueName(in); got != want {
			t.Errorf("valueName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNamerIsDeterministic(t *testing.T) {
	n := NewNamer("Client")
	got := []string{n.Take("Client"), n.Take("Y"), n.Take("Y"), n.Take("Y2"), n.Take("Y")}
	want := []string{"Client2", "Y", "Y2", "Y22", "Y3"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("Take #%d = %q, want %q", i, got[i], want[i])
		}
	}
}
