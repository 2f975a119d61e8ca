package runtime

import (
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
		v := ms
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
	small := 250.0
	task := &Task{}
	if err := task.setState(&wireTask{TaskID: "t", Status: TaskWorking, PollIntervalMs: &small}); err != nil {
		t.Fatal(err)
	}
	if w := pollWait(task.Status()); w != 250*time.Millisecond {
		t.Errorf("250 ms: the poll waits %v", w)
	}
}
