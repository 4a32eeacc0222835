package org.apache.dubbo.interop.scale;

import org.apache.dubbo.common.URL;
import org.apache.dubbo.common.utils.UrlUtils;
import org.apache.dubbo.registry.NotifyListener;
import org.apache.dubbo.registry.support.CacheableFailbackRegistry;

import java.util.List;

/**
 * A registry with Java Dubbo's interface-level consumer machinery ({@link CacheableFailbackRegistry},
 * the base class of its ZooKeeper registry) and no server: the benchmark hands it a child listing of
 * {@code /dubbo/{interface}/providers} the way a ZooKeeper watch would.
 *
 * <p>A ZooKeeper child event makes Dubbo 3.3's ZooKeeper registry turn the names into URLs with
 * {@code toUrlsWithEmpty(consumer, path, children)} and hand them to {@code notify(consumer,
 * listener, urls)} (FailbackRegistry, then AbstractRegistry, which groups them by category and
 * calls the listener, the consumer's RegistryDirectory). {@link #childNamesToUrls} and
 * {@link #deliver} are those two calls, public so that they can be timed one by one. Matching is
 * {@code UrlUtils.isMatch}, as in the ZooKeeper registry.
 */
final class InMemoryRegistry extends CacheableFailbackRegistry {

    InMemoryRegistry(URL url) {
        super(url);
    }

    /** The child names of {@code path} to provider URLs, through the registry's URL caches. */
    List<URL> childNamesToUrls(URL consumer, String path, List<String> children) {
        return toUrlsWithEmpty(consumer, path, children);
    }

    /** The URLs of a child listing to the subscriber (AbstractRegistry's notify, then the listener). */
    void deliver(URL consumer, NotifyListener listener, List<URL> urls) {
        notify(consumer, listener, urls);
    }

    /** Entries in the registry's name → URL cache of {@code consumer}. */
    int cachedUrls(URL consumer) {
        var byName = stringUrls.get(consumer);
        return byName == null ? 0 : byName.size();
    }

    /** Distinct parameter sets (URLParam) the registry has parsed. */
    int cachedParams() {
        return stringParam.size();
    }

    @Override
    protected boolean isMatch(URL subscribeUrl, URL providerUrl) {
        return UrlUtils.isMatch(subscribeUrl, providerUrl);
    }

    @Override
    public boolean isAvailable() {
        return true;
    }

    @Override
    public void doRegister(URL url) {}

    @Override
    public void doUnregister(URL url) {}

    @Override
    public void doSubscribe(URL url, NotifyListener listener) {}
}
