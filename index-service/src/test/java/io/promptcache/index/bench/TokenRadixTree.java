package io.promptcache.index.bench;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The comparison baseline of the routing benchmark, written for it only: a radix tree over token ids, as SGLang's
 * gateway keeps one (seed 001 §3.3): edges carry token runs, children are indexed by their first token, and every
 * node records which backends hold the path down to it. The longest match per backend is the deepest node on the
 * request's path that lists the backend, counted in complete blocks to compare with the block tracker.
 */
final class TokenRadixTree {

    private static final class Node {

        int[] edge;
        final Map<Integer, Node> children = new HashMap<>(4);
        long backends; // bit per backend index (up to 64)

        Node(int[] edge) {
            this.edge = edge;
        }
    }

    private final Node root = new Node(new int[0]);

    /** {@code backend} (0..63) holds {@code tokens}. */
    void insert(int[] tokens, int backend) {
        long bit = 1L << backend;
        Node node = root;
        node.backends |= bit;
        int i = 0;
        while (i < tokens.length) {
            Node child = node.children.get(tokens[i]);
            if (child == null) {
                Node leaf = new Node(Arrays.copyOfRange(tokens, i, tokens.length));
                leaf.backends = bit;
                node.children.put(tokens[i], leaf);
                return;
            }
            int common = common(child.edge, tokens, i);
            if (common < child.edge.length) {
                split(node, child, common);
                child = node.children.get(tokens[i]);
            }
            child.backends |= bit;
            node = child;
            i += common;
        }
    }

    /** Matched tokens per backend index, for a request of {@code tokens}. */
    int[] match(int[] tokens, int backendCount) {
        int[] matched = new int[backendCount];
        Node node = root;
        int i = 0;
        while (i < tokens.length) {
            Node child = node.children.get(tokens[i]);
            if (child == null) {
                break;
            }
            int common = common(child.edge, tokens, i);
            i += common;
            for (int b = 0; b < backendCount; b++) {
                if ((child.backends & (1L << b)) != 0) {
                    matched[b] = i;
                }
            }
            if (common < child.edge.length) {
                break;
            }
            node = child;
        }
        return matched;
    }

    private static int common(int[] edge, int[] tokens, int from) {
        int n = Math.min(edge.length, tokens.length - from);
        int k = 0;
        while (k < n && edge[k] == tokens[from + k]) {
            k++;
        }
        return k;
    }

    private static void split(Node parent, Node child, int at) {
        Node head = new Node(Arrays.copyOf(child.edge, at));
        head.backends = child.backends;
        child.edge = Arrays.copyOfRange(child.edge, at, child.edge.length);
        head.children.put(child.edge[0], child);
        parent.children.put(head.edge[0], head);
    }
}
