/*
 * The kernel's CEC adapters (/dev/cecN, linux/cec.h): opened without
 * blocking, claimed as a playback device, their messages and state read as
 * poll() says. The kernel answers the core messages itself (Give Physical
 * Address, Give OSD Name, Get CEC Version, Give Device Vendor ID, Abort);
 * the rest come to us as the follower.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cec/cec-adapter.h"

#ifdef HAVE_LINUX_CEC_H
#include <linux/cec.h>

#define DEV_DIR "/dev"
#define DEV_PREFIX "cec"
/* The kernel's wait for a reply asked for (ms): its default, as the spec's
 * 1 s for a follower to answer. */
#define REPLY_TIMEOUT_MS 1000

static int cmp_paths(const void *a, const void *b)
{
	const char *x = a, *y = b;
	size_t lx = strlen(x), ly = strlen(y);

	/* cec2 before cec10 */
	return lx != ly ? (lx < ly ? -1 : 1) : strcmp(x, y);
}

static int dev_list(void *ctx, char paths[][CEC_PATH_MAX], int max)
{
	DIR *d = opendir(DEV_DIR);
	struct dirent *e;
	int n = 0;

	(void)ctx;
	if (!d)
		return -errno;
	while ((e = readdir(d)) && n < max) {
		size_t len = strlen(e->d_name);

		if (strncmp(e->d_name, DEV_PREFIX, strlen(DEV_PREFIX)) != 0 ||
		    len == strlen(DEV_PREFIX) || len + sizeof(DEV_DIR) >= CEC_PATH_MAX)
			continue;
		memcpy(paths[n], DEV_DIR "/", sizeof(DEV_DIR));
		memcpy(paths[n] + sizeof(DEV_DIR), e->d_name, len + 1);
		n++;
	}
	closedir(d);
	qsort(paths, (size_t)n, CEC_PATH_MAX, cmp_paths);
	return n;
}

static int dev_open(void *ctx, const char *path, struct cec_adapter_info *info)
{
	struct cec_caps caps = { 0 };
	__u16 pa = CEC_PHYS_ADDR_INVALID;
	int fd, ret;

	(void)ctx;
	memset(info, 0, sizeof(*info));
	fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	/* A directory is no adapter, as a regular file is not: said once,
	 * never looked at again (it was retried for ever as "Is a
	 * directory"). */
	if (fd < 0)
		return errno == EISDIR ? -ENOTTY : -errno;
	if (ioctl(fd, CEC_ADAP_G_CAPS, &caps) < 0) {
		/* Any other device answers ENOTTY (or EINVAL): not an adapter. */
		ret = errno == EINVAL ? -ENOTTY : -errno;
		close(fd);
		return ret;
	}
	snprintf(info->driver, sizeof(info->driver), "%s", caps.driver);
	snprintf(info->name, sizeof(info->name), "%s", caps.name);
	info->can_transmit = caps.capabilities & CEC_CAP_TRANSMIT;
	info->pa_settable = caps.capabilities & CEC_CAP_PHYS_ADDR;
#ifdef CEC_CAP_CONNECTOR_INFO
	if (caps.capabilities & CEC_CAP_CONNECTOR_INFO) {
		struct cec_connector_info conn = { 0 };

		if (ioctl(fd, CEC_ADAP_G_CONNECTOR_INFO, &conn) == 0 &&
		    conn.type == CEC_CONNECTOR_TYPE_DRM) {
			info->has_connector = true;
			info->card_no = conn.drm.card_no;
			info->connector_id = conn.drm.connector_id;
		}
	}
#endif
	if (ioctl(fd, CEC_ADAP_G_PHYS_ADDR, &pa) == 0)
		info->pa = pa;
	else
		info->pa = CEC_PA_NONE;
	return fd;
}

static int dev_claim(void *ctx, int fd, const char *osd_name)
{
	__u32 mode = CEC_MODE_INITIATOR | CEC_MODE_FOLLOWER;
	struct cec_log_addrs las = { 0 };

	(void)ctx;
	if (ioctl(fd, CEC_S_MODE, &mode) < 0)
		return -errno;
	/* Already configured (by another program, or by us before a restart):
	 * its addresses are used as they are. */
	if (ioctl(fd, CEC_ADAP_G_LOG_ADDRS, &las) == 0 && las.num_log_addrs > 0)
		return 0;
	memset(&las, 0, sizeof(las));
	las.cec_version = CEC_OP_CEC_VERSION_1_4;
	las.vendor_id = CEC_VENDOR_ID_NONE;
	snprintf(las.osd_name, sizeof(las.osd_name), "%s", osd_name);
	las.num_log_addrs = 1;
	las.log_addr_type[0] = CEC_LOG_ADDR_TYPE_PLAYBACK;
	las.primary_device_type[0] = CEC_OP_PRIM_DEVTYPE_PLAYBACK;
	las.all_device_types[0] = CEC_OP_ALL_DEVTYPE_PLAYBACK;
	/* Non-blocking fd: returns at once, the state change event says
	 * when the address is claimed (after the physical address comes). */
	if (ioctl(fd, CEC_ADAP_S_LOG_ADDRS, &las) < 0 && errno != EBUSY)
		return -errno;
	return 0;
}

static int dev_state(void *ctx, int fd, uint16_t *pa, int *la)
{
	struct cec_log_addrs las = { 0 };
	__u16 p = CEC_PHYS_ADDR_INVALID;

	(void)ctx;
	if (ioctl(fd, CEC_ADAP_G_PHYS_ADDR, &p) < 0)
		return -errno;
	if (ioctl(fd, CEC_ADAP_G_LOG_ADDRS, &las) < 0)
		return -errno;
	*pa = p;
	*la = las.num_log_addrs > 0 && las.log_addr[0] != CEC_LOG_ADDR_INVALID ?
	      las.log_addr[0] : -1;
	return 0;
}

static int dev_set_pa(void *ctx, int fd, uint16_t pa)
{
	__u16 p = pa;

	(void)ctx;
	/* The fd does not block: the kernel claims the logical address
	 * configured (dev_claim) in the background, and says so in an event. */
	if (ioctl(fd, CEC_ADAP_S_PHYS_ADDR, &p) < 0)
		return -errno;
	return 0;
}

static int dev_transmit(void *ctx, int fd, const struct cec_frame *f, int reply_opcode,
			uint32_t *seq)
{
	struct cec_msg msg = { 0 };

	(void)ctx;
	msg.len = f->len;
	memcpy(msg.msg, f->b, f->len);
	if (reply_opcode >= 0) {
		msg.reply = (__u8)reply_opcode;
		msg.timeout = REPLY_TIMEOUT_MS;
	}
	if (ioctl(fd, CEC_TRANSMIT, &msg) < 0)
		return -errno;
	*seq = msg.sequence;
	return 0;
}

static enum cec_result tx_result(const struct cec_msg *m)
{
	/* The status bits of every try are or'ed together: OK wins. */
	if (m->tx_status & CEC_TX_STATUS_OK) {
		if (m->rx_status & CEC_RX_STATUS_FEATURE_ABORT)
			return CEC_RESULT_ABORTED;
		if (m->rx_status & CEC_RX_STATUS_TIMEOUT)
			return CEC_RESULT_TIMEOUT;
		return CEC_RESULT_OK;
	}
	if (m->tx_status & CEC_TX_STATUS_NACK)
		return CEC_RESULT_NACK;
	if (m->tx_status & CEC_TX_STATUS_TIMEOUT)
		return CEC_RESULT_TIMEOUT;
	return CEC_RESULT_BUSY;
}

static int dev_receive(void *ctx, int fd, struct cec_rx *rx)
{
	struct cec_msg msg = { 0 };

	(void)ctx;
	memset(rx, 0, sizeof(*rx));
	if (ioctl(fd, CEC_RECEIVE, &msg) < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	/* A transmit's result comes back with its sequence and tx_status. */
	rx->is_result = msg.sequence && msg.tx_status;
	rx->seq = msg.sequence;
	if (rx->is_result) {
		rx->result = tx_result(&msg);
		rx->has_reply = (msg.rx_status & CEC_RX_STATUS_OK) && msg.len > 1;
	}
	rx->frame.len = (uint8_t)(msg.len > CEC_FRAME_MAX ? CEC_FRAME_MAX : msg.len);
	memcpy(rx->frame.b, msg.msg, rx->frame.len);
	return 0;
}

static int dev_event(void *ctx, int fd)
{
	struct cec_event ev = { 0 };

	(void)ctx;
	if (ioctl(fd, CEC_DQEVENT, &ev) < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	return 0;
}

static int dev_fd(void *ctx, int fd)
{
	(void)ctx;
	return fd;
}

static void dev_close(void *ctx, int fd)
{
	(void)ctx;
	if (fd >= 0)
		close(fd);
}

#else /* no linux/cec.h: no adapter is ever found */

static int dev_list(void *ctx, char paths[][CEC_PATH_MAX], int max)
{
	(void)ctx, (void)paths, (void)max;
	return 0;
}

static int dev_open(void *ctx, const char *path, struct cec_adapter_info *info)
{
	(void)ctx, (void)path, (void)info;
	return -ENOTSUP;
}

static int dev_claim(void *ctx, int h, const char *osd_name)
{
	(void)ctx, (void)h, (void)osd_name;
	return -ENOTSUP;
}

static int dev_state(void *ctx, int h, uint16_t *pa, int *la)
{
	(void)ctx, (void)h, (void)pa, (void)la;
	return -ENODEV;
}

static int dev_set_pa(void *ctx, int h, uint16_t pa)
{
	(void)ctx, (void)h, (void)pa;
	return -ENODEV;
}

static int dev_transmit(void *ctx, int h, const struct cec_frame *f, int reply_opcode,
			uint32_t *seq)
{
	(void)ctx, (void)h, (void)f, (void)reply_opcode, (void)seq;
	return -ENODEV;
}

static int dev_receive(void *ctx, int h, struct cec_rx *rx)
{
	(void)ctx, (void)h, (void)rx;
	return -ENODEV;
}

static int dev_event(void *ctx, int h)
{
	(void)ctx, (void)h;
	return -ENODEV;
}

static int dev_fd(void *ctx, int h)
{
	(void)ctx, (void)h;
	return -1;
}

static void dev_close(void *ctx, int h)
{
	(void)ctx, (void)h;
}
#endif

const struct cec_adapter_ops cec_dev_ops = {
	.list = dev_list,
	.open = dev_open,
	.claim = dev_claim,
	.state = dev_state,
	.set_pa = dev_set_pa,
	.transmit = dev_transmit,
	.receive = dev_receive,
	.event = dev_event,
	.fd = dev_fd,
	.close = dev_close,
};
