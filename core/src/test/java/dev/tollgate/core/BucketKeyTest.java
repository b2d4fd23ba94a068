package dev.tollgate.core;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Keys are equal, and hash alike, exactly when tenant, route and shard are. */
class BucketKeyTest {

    @Test
    void equalKeysAreEqualAndHashAlike() {
        BucketKey a = new BucketKey(new String("acme"), "orders", 3);
        BucketKey b = new BucketKey("acme", new String("orders"), 3);
        assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
        assertThat(new BucketKey("acme", "orders")).isEqualTo(new BucketKey("acme", "orders", BucketKey.WHOLE));
    }

    @Test
    void keysDifferingInAnyComponentDiffer() {
        BucketKey key = new BucketKey("acme", "orders", 3);
        assertThat(key).isNotEqualTo(new BucketKey("acme2", "orders", 3))
                .isNotEqualTo(new BucketKey("acme", "orders2", 3))
                .isNotEqualTo(new BucketKey("acme", "orders", 4))
                .isNotEqualTo(new BucketKey("acme", "orders"))
                .isNotEqualTo(null)
                .isNotEqualTo("acme:orders:3");
        // Swapping tenant and route must not collide into an equal key.
        assertThat(new BucketKey("a", "b")).isNotEqualTo(new BucketKey("b", "a"));
    }
}
