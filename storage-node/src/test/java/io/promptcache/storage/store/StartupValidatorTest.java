package io.promptcache.storage.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/** What a crash can leave behind, and what validation makes of it on the next start. */
class StartupValidatorTest {

    @TempDir
    Path data;

    @Test
    void shouldCleanWhatACrashLeftAndKeepCompleteObjects() throws Exception {
        // Given: three complete objects ...
        try (ObjectStore store = ObjectStore.open(data, Durability.PERSISTENT, 1 << 20)) {
            store.createBucket("kv-cache");
            for (String key : new String[]{"keep", "lose-body", "truncate-body"}) {
                put(store, key, ObjectStoreTest.randomBytes(4096, key.hashCode()));
            }
            // ... then the damage of crashes at different points
            Files.delete(store.directory().objectFile(store.head("kv-cache", "lose-body").fileId()));
            Files.write(store.directory().objectFile(store.head("kv-cache", "truncate-body").fileId()), new byte[100]);
        }
        Files.write(data.resolve("tmp").resolve("0123456789abcdef0123456789abcdef.part"), new byte[10]);
        Path orphan = data.resolve("objects").resolve("ff").resolve("ff23456789abcdef0123456789abcdef");
        Files.createDirectories(orphan.getParent());
        Files.write(orphan, new byte[20]);
        // When
        try (ObjectStore store = ObjectStore.open(data, Durability.PERSISTENT, 1 << 20)) {
            // Then
            ValidationReport report = store.validation();
            assertThat(report.tempFilesCleaned()).isEqualTo(1);
            // the planted orphan, and the truncated body once its entry is dropped
            assertThat(report.orphanFilesCleaned()).isEqualTo(2);
            assertThat(report.missingEntriesCleaned()).isEqualTo(2);
            assertThat(report.objects()).isEqualTo(1);
            assertThat(report.bytes()).isEqualTo(4096);
            assertThat(store.usedBytes()).isEqualTo(4096);
            assertThat(Files.readAllBytes(store.directory().objectFile(store.head("kv-cache", "keep").fileId())))
                    .isEqualTo(ObjectStoreTest.randomBytes(4096, "keep".hashCode()));
            assertThat(store.list("kv-cache", null, null, null, 100).objects()).extracting(ListPage.Entry::key)
                    .containsExactly("keep");
            assertThat(Files.exists(orphan)).isFalse();
        }
    }

    @Test
    void shouldFindNothingToCleanAfterACleanStop() throws Exception {
        try (ObjectStore store = ObjectStore.open(data, Durability.BEST_EFFORT, 1 << 20)) {
            store.createBucket("kv-cache");
            put(store, "a", new byte[10]);
        }
        try (ObjectStore store = ObjectStore.open(data, Durability.BEST_EFFORT, 1 << 20)) {
            assertThat(store.validation()).extracting(ValidationReport::tempFilesCleaned,
                    ValidationReport::orphanFilesCleaned, ValidationReport::missingEntriesCleaned,
                    ValidationReport::corruptEntriesCleaned, ValidationReport::objects)
                    .containsExactly(0L, 0L, 0L, 0L, 1L);
        }
    }

    @Test
    void shouldKeepMultipartPartsAcrossRestartsAndCleanOrphanParts() throws Exception {
        // Given: an upload with one part, then an unreferenced file planted in its directory
        String uploadId;
        try (ObjectStore store = ObjectStore.open(data, Durability.PERSISTENT, 1 << 20)) {
            store.createBucket("kv-cache");
            uploadId = store.multipart().create("kv-cache", "big", "application/octet-stream", Map.of());
            Parts.upload(store.multipart(), "kv-cache", "big", uploadId, 1, 3000);
        }
        Files.write(Parts.file(data, uploadId, "00000000000000000000000000000000"), new byte[7]);
        // When
        try (ObjectStore store = ObjectStore.open(data, Durability.PERSISTENT, 1 << 20)) {
            // Then
            assertThat(store.validation().orphanFilesCleaned()).isEqualTo(1);
            assertThat(store.multipart().parts("kv-cache", "big", uploadId)).singleElement()
                    .satisfies(p -> assertThat(p.meta().size()).isEqualTo(3000));
            assertThat(store.usedBytes()).isEqualTo(3000);
            store.multipart().abort("kv-cache", "big", uploadId);
            assertThat(store.usedBytes()).isZero();
        }
    }

    @Test
    void shouldKeepTheUploadsInProgressOfTheLayoutWithADirectoryPerUpload() throws Exception {
        // Given: an upload of two parts whose files are where nodes before the flat layout kept them
        // (uploads/<uploadId>/<fileId>), and an empty directory of an upload a crash cut short
        String uploadId;
        ObjectMeta one;
        ObjectMeta two;
        byte[] first = ObjectStoreTest.randomBytes((int) MultipartUploads.MIN_PART_BYTES, 1);
        byte[] second = ObjectStoreTest.randomBytes(3000, 2);
        try (ObjectStore store = ObjectStore.open(data, Durability.PERSISTENT, 32 << 20)) {
            store.createBucket("kv-cache");
            uploadId = store.multipart().create("kv-cache", "big", "application/octet-stream", Map.of());
            one = Parts.upload(store.multipart(), "kv-cache", "big", uploadId, 1, first);
            two = Parts.upload(store.multipart(), "kv-cache", "big", uploadId, 2, second);
        }
        Path legacy = Files.createDirectory(data.resolve("uploads").resolve(uploadId));
        for (ObjectMeta part : new ObjectMeta[]{one, two}) {
            Files.move(Parts.file(data, uploadId, part.fileId()), legacy.resolve(part.fileId()));
        }
        Files.createDirectory(data.resolve("uploads").resolve("0123456789abcdef0123456789abcdef"));
        // When
        try (ObjectStore store = ObjectStore.open(data, Durability.PERSISTENT, 32 << 20)) {
            // Then: both parts kept and counted, no directory left, and the upload completes with their bytes
            assertThat(store.validation().orphanFilesCleaned()).isZero();
            assertThat(store.multipart().parts("kv-cache", "big", uploadId)).hasSize(2);
            assertThat(store.usedBytes()).isEqualTo(first.length + second.length);
            try (var left = Files.list(data.resolve("uploads"))) {
                assertThat(left.filter(Files::isDirectory)).isEmpty();
            }
            store.multipart().complete("kv-cache", "big", uploadId, List.of(
                    new MultipartUploads.PartRef(1, one.etag()), new MultipartUploads.PartRef(2, two.etag())));
            byte[] both = new byte[first.length + second.length];
            System.arraycopy(first, 0, both, 0, first.length);
            System.arraycopy(second, 0, both, first.length, second.length);
            assertThat(Bodies.read(store, "kv-cache", "big")).isEqualTo(both);
            assertThat(Parts.files(data, uploadId)).isEmpty();
        }
    }

    @Test
    void shouldRecountSharedBodiesAndRepairStoredCountsThatDiffer() throws Exception {
        // Given: an object, a copy sharing its body, and a continuation of a copied range plus new bytes
        byte[] body = ObjectStoreTest.randomBytes(4096, 7);
        String fileId;
        try (ObjectStore store = ObjectStore.open(data, Durability.PERSISTENT, 1 << 20)) {
            store.createBucket("kv-cache");
            put(store, "a", body);
            fileId = store.head("kv-cache", "a").fileId();
            store.copy(store.head("kv-cache", "a"), "kv-cache", "b", null, WriteCondition.NONE);
            MultipartUploads multipart = store.multipart();
            String upload = multipart.create("kv-cache", "c", "application/octet-stream", Map.of());
            ObjectMeta copied = multipart.copyPart("kv-cache", "c", upload, 1, store.head("kv-cache", "a"), 0, 1000);
            ObjectMeta fresh = Parts.upload(multipart, "kv-cache", "c", upload, 2, 10);
            multipart.complete("kv-cache", "c", upload, List.of(new MultipartUploads.PartRef(1, copied.etag()),
                    new MultipartUploads.PartRef(2, fresh.etag())));
            assertThat(store.usedBytes()).isEqualTo(4096 + 10);
            assertThat(store.logicalBytes()).isEqualTo(2 * 4096 + 1010);
        }
        // ... and a stored count gone wrong (it cannot after a crash: counts change with their records)
        try (MetadataStore metadata = new MetadataStore(data.resolve("meta"), true);
                MetadataStore.Batch batch = metadata.batch()) {
            metadata.write(batch.putFile(fileId, new ExtentRefs.FileEntry(4096, 0, 1, null).encode()));
        }
        // When
        try (ObjectStore store = ObjectStore.open(data, Durability.PERSISTENT, 1 << 20)) {
            // Then: recounted from the records (a, b and c hold the file)
            assertThat(store.validation().refsRepaired()).isEqualTo(1);
            assertThat(store.validation().bytes()).isEqualTo(4096 + 10);
            assertThat(store.validation().logicalBytes()).isEqualTo(2 * 4096 + 1010);
            store.delete("kv-cache", "a");
            store.delete("kv-cache", "b");
            assertThat(Bodies.read(store, "kv-cache", "c")).startsWith(java.util.Arrays.copyOf(body, 1000))
                    .hasSize(1010);
            store.delete("kv-cache", "c");
            assertThat(store.usedBytes()).isZero();
            assertThat(Files.exists(store.directory().objectFile(fileId))).isFalse();
        }
        try (ObjectStore store = ObjectStore.open(data, Durability.PERSISTENT, 1 << 20)) {
            assertThat(store.validation().refsRepaired()).isZero();
            assertThat(store.validation().orphanFilesCleaned()).isZero();
            assertThat(store.bodyFileCount()).isZero();
        }
    }

    @Test
    void shouldCompleteATrimACrashInterruptedAndKeepTheContinuationWhole() throws Exception {
        // Given: a parent and a continuation sharing its first 1,000 bytes; the parent is deleted, which trims its
        // file to those 1,000 bytes in the batch, and the store stops before the delayed truncation runs
        byte[] body = ObjectStoreTest.randomBytes(4096, 8);
        String fileId;
        try (ObjectStore store = ObjectStore.open(data, Durability.PERSISTENT, 1 << 20)) {
            store.createBucket("kv-cache");
            put(store, "parent", body);
            fileId = store.head("kv-cache", "parent").fileId();
            MultipartUploads multipart = store.multipart();
            String upload = multipart.create("kv-cache", "child", "application/octet-stream", Map.of());
            ObjectMeta copied = multipart.copyPart("kv-cache", "child", upload, 1, store.head("kv-cache", "parent"),
                    0, 1000);
            ObjectMeta fresh = Parts.upload(multipart, "kv-cache", "child", upload, 2, 10);
            multipart.complete("kv-cache", "child", upload, List.of(new MultipartUploads.PartRef(1, copied.etag()),
                    new MultipartUploads.PartRef(2, fresh.etag())));
            store.delete("kv-cache", "parent");
            assertThat(store.usedBytes()).isEqualTo(1000 + 10);
            assertThat(store.tierStats().trimmed()).isEqualTo(1);
        }
        assertThat(Files.size(data.resolve("objects").resolve(fileId.substring(0, 2)).resolve(fileId)))
                .as("the truncation had not run yet").isEqualTo(4096);
        // When
        try (ObjectStore store = ObjectStore.open(data, Durability.PERSISTENT, 1 << 20)) {
            // Then: the file is cut to what its record says, nothing is dropped, the continuation reads right
            assertThat(Files.size(store.directory().objectFile(fileId))).isEqualTo(1000);
            assertThat(store.validation().missingEntriesCleaned()).isZero();
            assertThat(store.validation().bytes()).isEqualTo(1000 + 10);
            byte[] child = Bodies.read(store, "kv-cache", "child");
            assertThat(java.util.Arrays.copyOf(child, 1000)).isEqualTo(java.util.Arrays.copyOf(body, 1000));
            assertThat(child).hasSize(1010);
        }
    }

    private static void put(ObjectStore store, String key, byte[] body) throws IOException {
        try (ObjectUpload upload = store.beginPut("kv-cache", key, body.length, "application/octet-stream", Map.of())) {
            upload.write(body, 0, body.length);
            upload.commit(null);
        }
    }
}
