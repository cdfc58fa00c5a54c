# cec: HDMI-CEC through the kernel's adapters (/dev/cecN, linux/cec.h), no
# library -- the messages' bytes and the state machine as pure code
# (cec-msg, cec-machine) and the physical address in an EDID (cec-edid),
# the adapter behind an ops table (cec-dev: the ioctls), the glue that
# picks and follows one (cec). Uses only base.
noinst_LIBRARIES += src/cec/librk-cec.a
src_cec_librk_cec_a_SOURCES = \
	src/cec/cec-msg.c src/cec/cec-msg.h \
	src/cec/cec-machine.c src/cec/cec-machine.h \
	src/cec/cec-edid.c src/cec/cec-edid.h \
	src/cec/cec-adapter.h src/cec/cec-dev.c \
	src/cec/cec.c src/cec/cec.h
CEC_LIBS = src/cec/librk-cec.a
