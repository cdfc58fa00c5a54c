# camera: the floor's own eye (--camera). Its sources behind an ops table
# (camera-source.h): a V4L2 capture device (camera-v4l2), a recording
# (camera-replay); the raw formats to grey (camera-convert), MJPEG through
# libjpeg-turbo (camera-mjpeg), the recorder (camera-record). The glue to
# the water (camera.h): the source kept and its faults, the vision's thread
# and its mailbox (camera), the tracks to the gesture machine
# (camera-touches), /camera.png's picture (camera-picture), the options'
# values (camera-options). Uses base, image, input, tuio (the corners'
# check), water (the gesture) and vision.
noinst_LIBRARIES += src/camera/libcamera.a
src_camera_libcamera_a_SOURCES = \
	src/camera/camera-source.h \
	src/camera/camera.h \
	src/camera/camera-source-private.h \
	src/camera/camera-source.c \
	src/camera/camera-convert.c \
	src/camera/camera-mjpeg.c \
	src/camera/camera-v4l2.c \
	src/camera/camera-replay.c \
	src/camera/camera-record.c \
	src/camera/camera-private.h \
	src/camera/camera.c \
	src/camera/camera-touches.c \
	src/camera/camera-picture.c \
	src/camera/camera-options.c
src_camera_libcamera_a_CFLAGS = $(AM_CFLAGS) $(JPEG_CFLAGS)
CAMERA_LIBS = src/camera/libcamera.a $(JPEG_LIBS)
