// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for blk-mq.
 *
 * blk-mq-quiesce: q->quiesce_depth counts the quiesces not yet undone, and
 * blk_queue_quiesced() reads it.  An unquiesce without a quiesce is a
 * caller's bug: it must warn and leave the depth at zero, or the next
 * quiesce would leave the queue running.
 *
 * blk-mq-batch: which requests a driver's completion batch may take.
 * blk_mq_end_request_batch() gives the driver tags of a batch back with
 * blk_mq_put_tags(), which puts tags of the normal pool only: a reserved
 * request in a batch would clear a bit outside the bitmap and leak its
 * reserved tag.  blk_mq_add_to_batch() must turn reserved requests away.
 */
#include <kunit/test.h>
#include <linux/blk-mq.h>
#include <linux/blkdev.h>

#define BLK_MQ_KUNIT_DEPTH	4
#define BLK_MQ_KUNIT_RESERVED	1

static blk_status_t blk_mq_kunit_queue_rq(struct blk_mq_hw_ctx *hctx,
					  const struct blk_mq_queue_data *bd)
{
	return BLK_STS_IOERR;
}

static const struct blk_mq_ops blk_mq_kunit_ops = {
	.queue_rq	= blk_mq_kunit_queue_rq,
};

static void blk_mq_kunit_complete_batch(struct io_comp_batch *iob)
{
	blk_mq_end_request_batch(iob);
}

struct blk_mq_kunit_ctx {
	struct blk_mq_tag_set set;
	struct request_queue *q;
};

static int blk_mq_kunit_init(struct kunit *test)
{
	struct blk_mq_kunit_ctx *ctx;
	int ret;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	ctx->set.ops = &blk_mq_kunit_ops;
	ctx->set.nr_hw_queues = 1;
	ctx->set.queue_depth = BLK_MQ_KUNIT_DEPTH;
	ctx->set.reserved_tags = BLK_MQ_KUNIT_RESERVED;
	ctx->set.numa_node = NUMA_NO_NODE;
	ret = blk_mq_alloc_tag_set(&ctx->set);
	if (ret)
		return ret;
	ctx->q = blk_mq_alloc_queue(&ctx->set, NULL, NULL);
	if (IS_ERR(ctx->q)) {
		blk_mq_free_tag_set(&ctx->set);
		return PTR_ERR(ctx->q);
	}
	test->priv = ctx;
	return 0;
}

static void blk_mq_kunit_exit(struct kunit *test)
{
	struct blk_mq_kunit_ctx *ctx = test->priv;

	/* KUnit calls ->exit() after a failed ->init() too */
	if (!ctx)
		return;
	blk_mq_destroy_queue(ctx->q);
	blk_put_queue(ctx->q);
	blk_mq_free_tag_set(&ctx->set);
}

/*
 * An unquiesce without a quiesce warns and leaves the depth at zero: one
 * quiesce then quiesces the queue, and one unquiesce ends it.  Where
 * WARN_ON_ONCE() does not go through the bug table (!GENERIC_BUG), a
 * suppressed warning still uses up its one report, so a second run in
 * the same boot sees none.
 */
static void blk_mq_unquiesce_unbalanced(struct kunit *test)
{
	struct blk_mq_kunit_ctx *ctx = test->priv;

	kunit_warning_suppress(test) {
		blk_mq_unquiesce_queue(ctx->q);
		if (IS_ENABLED(CONFIG_GENERIC_BUG))
			KUNIT_EXPECT_SUPPRESSED_WARNING_COUNT(test, 1);
		else
			KUNIT_EXPECT_LE(test,
					KUNIT_SUPPRESSED_WARNING_COUNT(), 1);
	}
	KUNIT_EXPECT_FALSE(test, blk_queue_quiesced(ctx->q));
	blk_mq_quiesce_queue(ctx->q);
	/* not quiesced: the depth went below zero, do not unquiesce again */
	KUNIT_ASSERT_TRUE(test, blk_queue_quiesced(ctx->q));
	blk_mq_unquiesce_queue(ctx->q);
	KUNIT_EXPECT_FALSE(test, blk_queue_quiesced(ctx->q));
}

/* Quiesces nest: the queue stays quiesced until the last unquiesce. */
static void blk_mq_quiesce_nested(struct kunit *test)
{
	struct blk_mq_kunit_ctx *ctx = test->priv;

	blk_mq_quiesce_queue(ctx->q);
	blk_mq_quiesce_queue(ctx->q);
	blk_mq_unquiesce_queue(ctx->q);
	KUNIT_EXPECT_TRUE(test, blk_queue_quiesced(ctx->q));
	blk_mq_unquiesce_queue(ctx->q);
	KUNIT_EXPECT_FALSE(test, blk_queue_quiesced(ctx->q));
}

static struct kunit_case blk_mq_quiesce_cases[] = {
	KUNIT_CASE(blk_mq_unquiesce_unbalanced),
	KUNIT_CASE(blk_mq_quiesce_nested),
	{}
};

static struct kunit_suite blk_mq_quiesce_suite = {
	.name = "blk-mq-quiesce",
	.init = blk_mq_kunit_init,
	.exit = blk_mq_kunit_exit,
	.test_cases = blk_mq_quiesce_cases,
};

static struct request *blk_mq_kunit_alloc(struct kunit *test,
					  blk_mq_req_flags_t flags)
{
	struct blk_mq_kunit_ctx *ctx = test->priv;

	return blk_mq_alloc_request(ctx->q, REQ_OP_DRV_IN,
				    flags | BLK_MQ_REQ_NOWAIT);
}

/* A reserved request is turned away, a normal one taken. */
static void blk_mq_batch_refuses_reserved(struct kunit *test)
{
	DEFINE_IO_COMP_BATCH(iob);
	struct request *resv, *rq;

	resv = blk_mq_kunit_alloc(test, BLK_MQ_REQ_RESERVED);
	KUNIT_ASSERT_FALSE(test, IS_ERR(resv));
	rq = blk_mq_kunit_alloc(test, 0);
	if (IS_ERR(rq))
		blk_mq_free_request(resv);
	KUNIT_ASSERT_FALSE(test, IS_ERR(rq));
	KUNIT_EXPECT_TRUE(test, blk_mq_is_reserved_rq(resv));
	KUNIT_EXPECT_FALSE(test, blk_mq_is_reserved_rq(rq));

	KUNIT_EXPECT_FALSE(test, blk_mq_add_to_batch(resv, &iob, false,
						     blk_mq_kunit_complete_batch));
	KUNIT_EXPECT_TRUE(test, blk_mq_add_to_batch(rq, &iob, false,
						    blk_mq_kunit_complete_batch));
	KUNIT_EXPECT_PTR_EQ(test, rq_list_peek(&iob.req_list), rq);

	/* not ended: take them off the batch and free them unstarted */
	iob.req_list.head = NULL;
	iob.req_list.tail = NULL;
	blk_mq_free_request(rq);
	blk_mq_free_request(resv);
}

/*
 * Completed as a driver does: every request offered to the batch, the
 * refused ones ended alone, the batch ended at once.  Then every tag of
 * both pools can be had again.
 */
static void blk_mq_batch_tags_back(struct kunit *test)
{
	struct request *rqs[BLK_MQ_KUNIT_DEPTH], *rq;
	DEFINE_IO_COMP_BATCH(iob);
	int i, batched = 0;

	for (i = 0; i < BLK_MQ_KUNIT_DEPTH; i++) {
		rqs[i] = blk_mq_kunit_alloc(test, i < BLK_MQ_KUNIT_RESERVED ?
					    BLK_MQ_REQ_RESERVED : 0);
		if (IS_ERR(rqs[i])) {
			while (i--)
				blk_mq_free_request(rqs[i]);
			KUNIT_FAIL(test, "cannot allocate a request");
			return;
		}
	}
	/* both pools are exhausted now */
	rq = blk_mq_kunit_alloc(test, 0);
	KUNIT_EXPECT_TRUE(test, IS_ERR(rq));
	if (!IS_ERR(rq))
		blk_mq_free_request(rq);
	rq = blk_mq_kunit_alloc(test, BLK_MQ_REQ_RESERVED);
	KUNIT_EXPECT_TRUE(test, IS_ERR(rq));
	if (!IS_ERR(rq))
		blk_mq_free_request(rq);

	for (i = 0; i < BLK_MQ_KUNIT_DEPTH; i++) {
		blk_mq_start_request(rqs[i]);
		if (blk_mq_add_to_batch(rqs[i], &iob, false,
					blk_mq_kunit_complete_batch))
			batched++;
		else
			blk_mq_end_request(rqs[i], BLK_STS_OK);
	}
	KUNIT_EXPECT_EQ(test, batched, BLK_MQ_KUNIT_DEPTH - BLK_MQ_KUNIT_RESERVED);
	if (batched != BLK_MQ_KUNIT_DEPTH - BLK_MQ_KUNIT_RESERVED) {
		/*
		 * Ending a batch that holds a reserved request would clear
		 * a bit outside the tag bitmap: end them one by one.
		 */
		while ((rq = rq_list_pop(&iob.req_list)))
			blk_mq_end_request(rq, BLK_STS_OK);
		return;
	}
	iob.complete(&iob);

	for (i = 0; i < BLK_MQ_KUNIT_DEPTH; i++) {
		rqs[i] = blk_mq_kunit_alloc(test, i < BLK_MQ_KUNIT_RESERVED ?
					    BLK_MQ_REQ_RESERVED : 0);
		KUNIT_EXPECT_FALSE(test, IS_ERR(rqs[i]));
	}
	for (i = 0; i < BLK_MQ_KUNIT_DEPTH; i++)
		if (!IS_ERR(rqs[i]))
			blk_mq_free_request(rqs[i]);
}

static struct kunit_case blk_mq_batch_cases[] = {
	KUNIT_CASE(blk_mq_batch_refuses_reserved),
	KUNIT_CASE(blk_mq_batch_tags_back),
	{}
};

static struct kunit_suite blk_mq_batch_suite = {
	.name = "blk-mq-batch",
	.init = blk_mq_kunit_init,
	.exit = blk_mq_kunit_exit,
	.test_cases = blk_mq_batch_cases,
};

kunit_test_suites(&blk_mq_quiesce_suite, &blk_mq_batch_suite);

MODULE_DESCRIPTION("KUnit tests for blk-mq quiesce and completion batches");
MODULE_LICENSE("GPL");
