package io.promptcache.index.storage;

import java.net.URL;

import org.junit.jupiter.api.Test;

import io.promptcache.schema.proto.ExternalEndpoint;
import io.promptcache.schema.proto.NodeStatus;

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

import static org.assertj.core.api.Assertions.assertThat;

/** How the index addresses an external endpoint: path-style by default, virtual-hosted when configured so. */
class ExternalAddressingTest {

    private static final StaticCredentialsProvider KEY = StaticCredentialsProvider.create(
            AwsBasicCredentials.create("AKID", "secret"));

    @Test
    void shouldPresignPathStyleUnlessTheEndpointIsVirtualHosted() {
        NodeStatus pathStyle = node(false);
        NodeStatus virtualHosted = node(true);

        assertThat(presignedGet(pathStyle)).hasHost("s3.example.test").hasPath("/kv-bucket/ns/obj");
        assertThat(presignedGet(virtualHosted)).hasHost("kv-bucket.s3.example.test").hasPath("/ns/obj");
        assertThat(presignedGet(virtualHosted).getQuery()).contains("X-Amz-Signature=");
    }

    @Test
    void shouldResolveRequestsOfAVirtualHostedEndpointWithTheBucketInTheHost() throws Exception {
        var endpoint = NodeTargets.VIRTUAL_HOSTED.resolveEndpoint(p -> p.bucket("kv-bucket")
                .region(Region.US_EAST_1).endpoint("https://s3.example.test:9443").forcePathStyle(true)).get();

        assertThat(endpoint.url().getHost()).isEqualTo("kv-bucket.s3.example.test");
        assertThat(endpoint.url().getPort()).isEqualTo(9443);
    }

    private static URL presignedGet(NodeStatus node) {
        try (S3Presigner presigner = NodeTargets.presigner(node, KEY, Region.US_EAST_1)) {
            return presigner.presignGetObject(r -> r.signatureDuration(java.time.Duration.ofMinutes(1))
                    .getObjectRequest(g -> g.bucket("kv-bucket").key("ns/obj"))).url();
        }
    }

    private static NodeStatus node(boolean virtualHosted) {
        return NodeStatus.newBuilder().setNodeId("s3").setEndpoint("https://s3.example.test")
                .setExternal(ExternalEndpoint.newBuilder().setBucket("kv-bucket").setVirtualHosted(virtualHosted))
                .build();
    }
}
