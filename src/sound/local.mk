# sound: the water heard -- the synthesizer (bubbles, rain, the swish, the
# limiter; pure arithmetic) and the output to the card through ALSA on a
# thread of its own; without libasound the same API, always silent
# (sound-none.c).
noinst_LIBRARIES += src/sound/librk-sound.a
src_sound_librk_sound_a_SOURCES = \
	src/sound/synth.c src/sound/synth.h \
	src/sound/sound.h
src_sound_librk_sound_a_CFLAGS = $(AM_CFLAGS) $(ALSA_CFLAGS)
if HAVE_ALSA
src_sound_librk_sound_a_SOURCES += src/sound/alsa.c src/sound/alsa-card.c src/sound/alsa-card.h
else
src_sound_librk_sound_a_SOURCES += src/sound/sound-none.c
endif
SOUND_LIBS = src/sound/librk-sound.a $(ALSA_LIBS) $(PTHREAD_LIBS) $(LIBM)
