package runtime

import (
	"encoding/json"
	"fmt"
	"math"
	"testing"
	"time"
)

// TestTaskDurationsClamped gives a task a poll interval and a TTL too large
// for a time.Duration: both become the largest duration, and the poll waits
// the longest interval, not the shortest.
func TestTaskDurationsClamped(t *testing.T) {
	for _, ms := range []float64{9.3e12, 1e15, float64(1 << 53), 1e300} {
		task := &Task{}
		v := wireMillis(ms)
		if err := task.setState(&wireTask{TaskID: "t", Status: TaskWorking, PollIntervalMs: &v, TTLMs: &v}); err != nil {
			t.Fatal(err)
		}
		st := task.Status()
		if st.PollInterval != time.Duration(math.MaxInt64) || st.TTL != time.Duration(math.MaxInt64) {
			t.Errorf("%g ms: poll interval %v, TTL %v; want both clamped to %v", ms, st.PollInterval, st.TTL, time.Duration(math.MaxInt64))
		}
		if w := pollWait(st); w != maxTaskPoll {
			t.Errorf("%g ms: the poll waits %v, want %v", ms, w, maxTaskPoll)
		}
	}
	small := wireMillis(250)
	task := &Task{}
	if err := task.setState(&wireTask{TaskID: "t", Status: TaskWorking, PollIntervalMs: &small}); err != nil {
		t.Fatal(err)
	}
	if w := pollWait(task.Status()); w != 250*time.Millisecond {
		t.Errorf("250 ms: the poll waits %v", w)
	}
}

// TestTaskDurationsBeyondFloat64 reads a task whose poll interval and TTL
// are beyond a float64's range, as tasks/get and a task result are read:
// 1e400 is the longest duration, as 1e300 is, and -1e400 none. The task
// was refused as malformed instead ("cannot unmarshal number 1e400 into Go
// struct field wireTask.pollIntervalMs"), which ended the wait for it.
func TestTaskDurationsBeyondFloat64(t *testing.T) {
	for _, tc := range []struct {
		lit  string
		want time.Duration
	}{{"1e400", time.Duration(math.MaxInt64)}, {"-1e400", 0}, {"1e-400", 0}, {"-0", 0}, {"1.5", 1500 * time.Microsecond}} {
		for _, keys := range [][2]string{{"pollIntervalMs", "ttlMs"}, {"pollInterval", "ttl"}} {
			data := fmt.Sprintf(`{"taskId":"t","status":"working","%s":%s,"%s":%s}`, keys[0], tc.lit, keys[1], tc.lit)
			var w wireTask
			if err := json.Unmarshal([]byte(data), &w); err != nil {
				t.Errorf("%s: %v", data, err)
				continue
			}
			task := &Task{}
			if err := task.setState(&w); err != nil {
				t.Fatal(err)
			}
			if st := task.Status(); st.PollInterval != tc.want || st.TTL != tc.want {
				t.Errorf("%s: poll interval %v, TTL %v; want both %v", data, st.PollInterval, st.TTL, tc.want)
			}
		}
	}
}
