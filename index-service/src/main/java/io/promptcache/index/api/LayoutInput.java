package io.promptcache.index.api;

import io.promptcache.index.error.ApiException;
import io.promptcache.schema.proto.BlockEndOffsets;
import io.promptcache.schema.proto.BlockLayout;

/**
 * How an object's bytes split into blocks: a fixed size per block, or the end offset of every block. Exactly one.
 *
 * @param bytesPerBlock bytes of each block
 * @param blockEndOffsets end offset (exclusive) of each block, strictly increasing; the last is the object's size
 */
public record LayoutInput(Long bytesPerBlock, long[] blockEndOffsets) {

    /**
     * Blocks a {@code blockEndOffsets} layout may describe at most: the offsets travel in the object's record, which
     * must stay under Kafka's record limit (docs/architecture.md, "Key pages"); a longer object uses bytesPerBlock.
     */
    public static final int MAX_OFFSET_BLOCKS = 65_536;

    /** The layout of {@code blocks} blocks as recorded in the ObjectRecord (400 if inconsistent). */
    public BlockLayout toProto(int blocks) {
        usableBytes(blocks);
        return bytesPerBlock != null
                ? BlockLayout.newBuilder().setBytesPerBlock(bytesPerBlock).build()
                : BlockLayout.newBuilder().setBlockEndOffsets(BlockEndOffsets.newBuilder()
                        .addAllOffsets(java.util.Arrays.stream(blockEndOffsets).boxed().toList())).build();
    }

    /** {@code usable[k-1]}: the bytes holding the first {@code k} blocks, for every {@code k} (400 if invalid). */
    public long[] usableBytes(int blocks) {
        if ((bytesPerBlock == null) == (blockEndOffsets == null)) {
            throw ApiException.badRequest(
                    "layout needs exactly one of \"bytesPerBlock\" and \"blockEndOffsets\"");
        }
        long[] usable = new long[blocks];
        if (bytesPerBlock != null) {
            if (bytesPerBlock < 1) {
                throw ApiException.badRequest("layout.bytesPerBlock must be at least 1");
            }
            for (int k = 1; k <= blocks; k++) {
                usable[k - 1] = Math.multiplyExact(bytesPerBlock, (long) k);
            }
            return usable;
        }
        if (blocks > MAX_OFFSET_BLOCKS) {
            throw ApiException.badRequest("layout.blockEndOffsets describes at most " + MAX_OFFSET_BLOCKS
                    + " blocks, got " + blocks + ": use layout.bytesPerBlock for longer objects");
        }
        if (blockEndOffsets.length != blocks) {
            throw ApiException.badRequest("layout.blockEndOffsets has " + blockEndOffsets.length
                    + " offsets for " + blocks + " complete blocks (a trailing partial block is not stored)");
        }
        long previous = 0;
        for (int i = 0; i < blocks; i++) {
            if (blockEndOffsets[i] <= previous) {
                throw ApiException.badRequest("layout.blockEndOffsets must be positive and strictly increasing "
                        + "(offset " + i + " is " + blockEndOffsets[i] + ")");
            }
            previous = blockEndOffsets[i];
            usable[i] = previous;
        }
        return usable;
    }
}
