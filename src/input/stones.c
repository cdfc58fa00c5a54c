/* A contact's size and pressure to its stone, the same for every source of
 * touches (evdev devices, trackers). */
#include "config.h"

#include "input/input.h"

double input_stone_radius(const struct input_stones *s, double contact_mm)
{
	if (!(contact_mm > INPUT_FINGERTIP_MM))
		return s->radius_min_mm;
	if (contact_mm >= INPUT_HAND_MM)
		return s->radius_max_mm;
	return s->radius_min_mm + (contact_mm - INPUT_FINGERTIP_MM) /
				  (INPUT_HAND_MM - INPUT_FINGERTIP_MM) *
				  (s->radius_max_mm - s->radius_min_mm);
}

double input_stone_weight(const struct input_stones *s, double pressure)
{
	if (!(pressure > 0))
		return s->weight_min_mm;
	if (pressure >= 1)
		return s->weight_max_mm;
	return s->weight_min_mm + pressure * (s->weight_max_mm - s->weight_min_mm);
}
