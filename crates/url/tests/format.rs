//! Formatting (`toString`, `toFullString`, ...) and round trips, including ZooKeeper node
//! names.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use dubbo_url::{decode, encode, Interner, Url, UrlAddress, UrlError, UrlParams};

const PROVIDER_UNSORTED: &str = "dubbo://192.168.1.6:20880/org.apache.dubbo.demo.DemoService?side=provider&application=demo-provider&methods=sayHello,sayHelloAsync&interface=org.apache.dubbo.demo.DemoService&anyhost=true&dubbo=2.0.2&release=3.3.0&timestamp=1700000000000&pid=4242&deprecated=false&dynamic=true&generic=false&service-name-mapping=true&prefer.serialization=fastjson2,hessian2&background=false&executor-management-mode=isolation&file-cache=true&register-mode=instance";

const PROVIDER_FULL: &str = "dubbo://192.168.1.6:20880/org.apache.dubbo.demo.DemoService?anyhost=true&application=demo-provider&background=false&deprecated=false&dubbo=2.0.2&dynamic=true&executor-management-mode=isolation&file-cache=true&generic=false&interface=org.apache.dubbo.demo.DemoService&methods=sayHello,sayHelloAsync&pid=4242&prefer.serialization=fastjson2,hessian2&register-mode=instance&release=3.3.0&service-name-mapping=true&side=provider&timestamp=1700000000000";

const PROVIDER_NODE: &str = "dubbo%3A%2F%2F192.168.1.6%3A20880%2Forg.apache.dubbo.demo.DemoService%3Fanyhost%3Dtrue%26application%3Ddemo-provider%26background%3Dfalse%26deprecated%3Dfalse%26dubbo%3D2.0.2%26dynamic%3Dtrue%26executor-management-mode%3Disolation%26file-cache%3Dtrue%26generic%3Dfalse%26interface%3Dorg.apache.dubbo.demo.DemoService%26methods%3DsayHello%2CsayHelloAsync%26pid%3D4242%26prefer.serialization%3Dfastjson2%2Chessian2%26register-mode%3Dinstance%26release%3D3.3.0%26service-name-mapping%3Dtrue%26side%3Dprovider%26timestamp%3D1700000000000";

#[test]
fn provider_full_string_is_sorted_like_java() {
    let url = Url::parse(PROVIDER_UNSORTED).unwrap();
    assert_eq!(url.to_full_string(), PROVIDER_FULL);
    // No credentials here, so toString == toFullString.
    assert_eq!(url.to_string(), PROVIDER_FULL);
    assert_eq!(
        url.to_identity_string(),
        "dubbo://192.168.1.6:20880/org.apache.dubbo.demo.DemoService"
    );
    assert_eq!(
        url.to_parameter_string(),
        PROVIDER_FULL.split_once('?').unwrap().1
    );
    assert_eq!(
        url.to_full_string_with(&["side", "application", "absent"]),
        "dubbo://192.168.1.6:20880/org.apache.dubbo.demo.DemoService?application=demo-provider&side=provider"
    );
}

#[test]
fn zookeeper_node_name_round_trip() {
    let url = Url::parse(PROVIDER_UNSORTED).unwrap();
    assert_eq!(url.to_encoded_full_string(), PROVIDER_NODE);
    assert_eq!(encode(PROVIDER_FULL), PROVIDER_NODE);
    assert_eq!(decode(PROVIDER_NODE).unwrap(), PROVIDER_FULL);

    let path = format!(
        "/dubbo/{}/providers/{}",
        encode(url.service_interface().unwrap()),
        url.to_encoded_full_string()
    );
    assert!(path.starts_with(
        "/dubbo/org.apache.dubbo.demo.DemoService/providers/dubbo%3A%2F%2F192.168.1.6%3A20880%2F"
    ));

    let interner = Interner::new();
    let back = Url::parse_encoded_with(PROVIDER_NODE, &interner).unwrap();
    assert_eq!(back, url);
    assert_eq!(back.to_encoded_full_string(), PROVIDER_NODE);
    assert_eq!(Url::parse_encoded(PROVIDER_NODE).unwrap(), url);

    // A second provider of the same service shares keys and common values.
    let other = PROVIDER_NODE.replace("192.168.1.6", "192.168.1.7");
    let second = Url::parse_encoded_with(&other, &interner).unwrap();
    let m1 = back.parameter("methods").unwrap();
    let m2 = second.parameter("methods").unwrap();
    assert!(std::ptr::eq(m1, m2));
    assert!(std::ptr::eq(back.path().unwrap(), second.path().unwrap()));
    assert!(!std::ptr::eq(
        back.parameter("timestamp").unwrap(),
        second.parameter("timestamp").unwrap()
    ));
    assert_eq!(second.host(), Some("192.168.1.7"));
}

#[test]
fn encoded_values_with_spaces_commas_and_unicode() {
    let url =
        Url::parse("tri://h:50051/org.Foo?desc=hello world&list=a,b&name=中文&pct=100%&plus=a+b")
            .unwrap();
    let node = url.to_encoded_full_string();
    assert_eq!(
        node,
        "tri%3A%2F%2Fh%3A50051%2Forg.Foo%3Fdesc%3Dhello+world%26list%3Da%2Cb%26name%3D%E4%B8%AD%E6%96%87%26pct%3D100%25%26plus%3Da%2Bb"
    );
    let back = Url::parse_encoded(&node).unwrap();
    assert_eq!(back, url);
    assert_eq!(back.parameter("desc"), Some("hello world"));
    assert_eq!(back.parameter("plus"), Some("a+b"));
}

#[test]
fn to_string_hides_credentials_and_trims_values() {
    let url = Url::parse(
        "dubbo://admin:hello1234@10.20.130.230:20880/context/path?version=1.0.0&application=morgan",
    )
    .unwrap();
    assert_eq!(
        url.to_string(),
        "dubbo://10.20.130.230:20880/context/path?application=morgan&version=1.0.0"
    );
    assert_eq!(
        url.to_full_string(),
        "dubbo://admin:hello1234@10.20.130.230:20880/context/path?application=morgan&version=1.0.0"
    );
    assert_eq!(
        url.to_identity_string(),
        "dubbo://admin:hello1234@10.20.130.230:20880/context/path"
    );
    assert_eq!(
        url.to_string_with(&["version"]),
        "dubbo://10.20.130.230:20880/context/path?version=1.0.0"
    );

    let url = Url::parse("http://1.2.3.4:8080/path?key=value1 value2").unwrap();
    assert_eq!(
        url.to_string(),
        "http://1.2.3.4:8080/path?key=value1 value2"
    );
    let url = Url::parse("http://h/p?a= x \t&b=").unwrap();
    assert_eq!(url.to_string(), "http://h/p?a=x&b=");
    // Username without password, password without username.
    assert_eq!(
        Url::parse("dubbo://u@h:1").unwrap().to_full_string(),
        "dubbo://u@h:1"
    );
    assert_eq!(
        Url::parse("dubbo://:p@h:1").unwrap().to_full_string(),
        "dubbo://h:1"
    );
    // Debug never shows the password.
    let dbg = format!(
        "{:?}",
        Url::parse("nacos://u:secret@h:1?password=hidden&username=u").unwrap()
    );
    assert!(!dbg.contains("secret") && !dbg.contains("hidden"), "{dbg}");
    assert!(dbg.contains("username"), "{dbg}");
}

#[test]
fn service_string_uses_the_service_key() {
    // URLTest.testToServiceString / testToServiceStringWithParameters
    let url = Url::parse("zookeeper://10.20.130.230:4444/org.apache.dubbo.metadata.report.MetadataReport?version=1.0.0&application=vic&group=aaa").unwrap();
    assert_eq!(
        url.to_service_string(),
        "zookeeper://10.20.130.230:4444/aaa/org.apache.dubbo.metadata.report.MetadataReport:1.0.0"
    );
    let url = Url::parse("zookeeper://10.20.130.230:4444/org.apache.dubbo.metadata.report.MetadataReport?version=1.0.0&application=vic&group=aaa&namespace=test").unwrap();
    assert_eq!(
        url.to_service_string_with(&["namespace"]),
        "zookeeper://10.20.130.230:4444/aaa/org.apache.dubbo.metadata.report.MetadataReport:1.0.0?namespace=test"
    );
}

#[test]
fn unusual_forms_round_trip() {
    let forms = [
        "192.168.1.3:20880",
        "file:///home/user1/router.js?type=script",
        "file://home/user1/router.js",
        "file:///D:/1/router.js?type=script",
        "/home/user1/router.js?type=script",
        "home/user1/router.js?type=script",
        "dubbo://[::1]:20880/org.Foo?x=1",
        "dubbo://fe80::1%en0/p",
        "zookeeper://a:1,b:2",
        "dubbo://u:p@h:20880/a/b/c?k=v&k2=v2",
        "?a=1",
        "",
    ];
    for form in forms {
        let url = Url::parse(form).unwrap();
        let full = url.to_full_string();
        let again = Url::parse(&full).unwrap();
        assert_eq!(again, url, "{form:?} -> {full:?}");
        assert_eq!(again.to_full_string(), full);
        assert_eq!(
            Url::parse_encoded(&url.to_encoded_full_string()).unwrap(),
            url,
            "{form:?}"
        );
    }
    // `file:/D:/..` normalises to the three-slash form.
    assert_eq!(
        Url::parse("file:/D:/1/router.js?type=script")
            .unwrap()
            .to_string(),
        "file:///D:/1/router.js?type=script"
    );
}

#[test]
fn with_methods_return_new_urls() {
    // URLTest.test_set_methods
    let url = Url::parse(
        "dubbo://admin:hello1234@10.20.130.230:20880/context/path?version=1.0.0&application=morgan",
    )
    .unwrap();
    let url2 = url.with_host("host");
    assert_eq!(url2.address(), "host:20880");
    let url2 = url2.with_port(1);
    assert_eq!(url2.address(), "host:1");
    let url2 = url2
        .with_path("/path")
        .with_protocol("protocol")
        .with_username("username")
        .with_password("password");
    assert_eq!(
        url2.to_full_string(),
        "protocol://username:password@host:1/path?application=morgan&version=1.0.0"
    );
    assert_eq!(url.host(), Some("10.20.130.230"));
    // The parameter half is shared, not copied.
    assert!(std::ptr::eq(
        url.parameter("application").unwrap(),
        url2.parameter("application").unwrap()
    ));

    // test_removeParameters / test_addParameter(s)
    let url = Url::parse("dubbo://admin:hello1234@10.20.130.230:20880/context/path?version=1.0.0&application=morgan&k1=v1&k2=v2").unwrap();
    let removed = url.without_parameter("version");
    assert_eq!(removed.params().len(), 3);
    assert_eq!(removed.version(), None);
    let removed = url.without_parameters(["version", "application", "NotExistedKey"]);
    assert_eq!(removed.to_parameter_string(), "k1=v1&k2=v2");
    let added = url
        .with_parameter("k3", "v3")
        .with_parameter("", "x")
        .with_parameter("k4", "");
    assert_eq!(added.params().len(), 5);
    let same = url.with_parameter("k1", "v1");
    assert_eq!(same, url);
    let if_absent = url.with_parameter_if_absent("application", "xxx");
    assert_eq!(if_absent.application(), Some("morgan"));
    let many = url.with_parameters([("k1", "x"), ("k9", "")]);
    assert_eq!(many.parameter("k1"), Some("x"));
    assert_eq!(many.parameter("k9"), Some(""));
    assert!(url.clear_parameters().params().is_empty());

    // setAddress
    let moved = url.with_address("10.0.0.9:30000").unwrap();
    assert_eq!(moved.address(), "10.0.0.9:30000");
    assert_eq!(url.with_address("other").unwrap().address(), "other:20880");
    assert_eq!(
        url.with_address("h:x").unwrap_err().code(),
        "url.invalid_port"
    );
    assert_eq!(
        url.with_address("h:70000").unwrap_err().code(),
        "url.port_out_of_range"
    );
    assert_eq!(moved.port_or(1), 30000);
    assert_eq!(url.with_port(0).port_or(1), 1);
}

#[test]
fn backups() {
    let url = Url::parse("zookeeper://10.0.0.1:2181?backup=10.0.0.2:2181, 10.0.0.3").unwrap();
    assert_eq!(
        url.backup_address(0).unwrap(),
        "10.0.0.1:2181,10.0.0.2:2181,10.0.0.3"
    );
    assert_eq!(
        url.backup_address(2181).unwrap(),
        "10.0.0.1:2181,10.0.0.2:2181,10.0.0.3:2181"
    );
    let urls = url.backup_urls().unwrap();
    assert_eq!(urls.len(), 3);
    assert_eq!(urls[1].address(), "10.0.0.2:2181");
    assert_eq!(urls[2].address(), "10.0.0.3:2181");
    let multi = Url::parse("zookeeper://a:2181,b:2181").unwrap();
    assert_eq!(multi.backup_address(0).unwrap(), "a:2181,b:2181");
}

#[test]
fn builder_and_address_checks() {
    let err = Url::builder()
        .host("h")
        .password("secret")
        .build()
        .unwrap_err();
    assert_eq!(err, UrlError::PasswordWithoutUsername);
    assert_eq!(err.code(), "url.password_without_username");
    assert_eq!(err.to_string(), "Invalid url, password without username!");
    let err = UrlAddress::new(None, Some(""), Some("x"), None, 0, None).unwrap_err();
    assert_eq!(err, UrlError::PasswordWithoutUsername);

    let url = Url::builder()
        .protocol("dubbo")
        .username("u")
        .password("p")
        .host("h")
        .port(20880)
        .path("//org.Foo")
        .param("default.timeout", "5")
        .param("retries", "2")
        .param("default.retries", "9")
        .build()
        .unwrap();
    assert_eq!(url.path(), Some("org.Foo"));
    assert_eq!(url.parameter("timeout"), Some("5"));
    assert_eq!(url.parameter("retries"), Some("2"));
    assert_eq!(
        url.to_full_string(),
        "dubbo://u:p@h:20880/org.Foo?default.retries=9&default.timeout=5&retries=2&timeout=5"
    );

    let parts = Url::from_parts(
        UrlAddress::new(Some("tri"), None, None, Some("h"), 1, None).unwrap(),
        UrlParams::parse("a=1"),
    );
    assert_eq!(parts.to_string(), "tri://h:1?a=1");
    assert_eq!("tri://h:1?a=1".parse::<Url>().unwrap(), parts);
    assert_eq!(parts.address_part().protocol(), Some("tri"));
}

#[test]
fn java_equality_ignores_timestamp_value() {
    // URLTest.testEquals / testHashcode
    let base = "consumer://30.225.20.150/org.apache.dubbo.rpc.service.GenericService?application=dubbo-demo-api-consumer&category=consumers&check=false&dubbo=2.0.2&generic=true&interface=org.apache.dubbo.demo.DemoService&pid=7375&side=consumer&sticky=false&timestamp=";
    let u6 = Url::parse(&format!("{base}1599556506417")).unwrap();
    let u7 = Url::parse(&format!("{base}2299556506417")).unwrap();
    assert!(u6.equivalent(&u7));
    assert_ne!(u6, u7);
    let u8 = u7.without_parameter("generic");
    assert!(!u7.equivalent(&u8));
    let u9 = u7.with_parameter("check", "true");
    assert!(!u7.equivalent(&u9));
    let other_port = Url::parse("10.20.130.230:20881/context/path?interface=x").unwrap();
    let port = Url::parse("10.20.130.230:20880/context/path?interface=x").unwrap();
    assert!(!port.equivalent(&other_port));
    assert!(port.equivalent(&port.clone()));
}

#[test]
fn nested_urls_in_parameters() {
    // The seed's registry://...?export=URL.encode("dubbo://...") and ?refer=URL.encode("consumer://...").
    let export = "dubbo://service-host/com.foo.FooService?version=1.0.0";
    let registry = Url::parse(&format!(
        "registry://registry-host/org.apache.dubbo.registry.RegistryService?export={}",
        encode(export)
    ))
    .unwrap();
    assert_eq!(
        registry.parameter_decoded("export").unwrap().as_deref(),
        Some(export)
    );
    let inner = registry.url_parameter("export").unwrap().unwrap();
    assert_eq!(inner.protocol(), Some("dubbo"));
    assert_eq!(inner.host(), Some("service-host"));
    assert_eq!(
        inner.service_key().as_deref(),
        Some("com.foo.FooService:1.0.0")
    );
    assert_eq!(registry.url_parameter("refer").unwrap(), None);
    let bad = registry.with_parameter("refer", "%zz");
    assert_eq!(
        bad.url_parameter("refer").unwrap_err().code(),
        "url.invalid_escape"
    );
    let again = registry
        .without_parameter("export")
        .with_parameter_encoded("export", export);
    assert_eq!(again, registry);
    assert_eq!(registry.with_parameter_encoded("x", ""), registry);
}
