package homeassistant_test

import (
	"fmt"

	"github.com/mcpgen/mcpgen/generated/homeassistant"
)

func ExampleHassSetVolumeArgs_Validate() {
	level := int64(150)
	err := (&homeassistant.HassSetVolumeArgs{VolumeLevel: &level}).Validate()
	fmt.Println(err)
	// Output: invalid arguments for HassSetVolume at /volume_level: must be <= 100
}
