"""LifeBench's data: how the benchmark names it, its catalogue entry (the English release's ten users at
a pinned commit) and its development copy.

Each user is a folder ``<user>/`` holding ``QA/QA_clean.json``, ``persona.json`` and the nine record
files ``phone_data/<type>.json``. The sha256 and size of each file that the development copy holds
byte for byte are pinned here; the others (the three held-out users, and the four ``agent_chat.json``
too large to copy) are recorded by the first verified fetch.
"""

from __future__ import annotations

from memsuite.eval.data.catalogue import LOCK, DataFile, Dataset, github_url
from memsuite.eval.definition import DataOption

_LIFEBENCH_REPO, _LIFEBENCH_REV = "1754955896/LifeBench", "96660ea27f6483a0684b157fc632f515ebd630c1"
#: The English release's folder in the repository.
_RELEASE = "life_bench_data/data_en"
#: The ten users of the English release, by folder name.
USERS = (
    "fenghaoran",
    "leimingxuan",
    "lumingqiang",
    "maxiulan",
    "songyajing",
    "sunyuwei",
    "yemingxuan",
    "yinhao",
    "yuxiaowei",
    "yuxiaowen",
)
#: Every file of a user, relative to its folder.
USER_FILES = (
    "QA/QA_clean.json",
    "persona.json",
    "phone_data/agent_chat.json",
    "phone_data/calendar.json",
    "phone_data/call.json",
    "phone_data/contact.json",
    "phone_data/fitness_health.json",
    "phone_data/note.json",
    "phone_data/photo.json",
    "phone_data/push.json",
    "phone_data/sms.json",
)
#: ``<user>/<file>`` -> (sha256, bytes), for the files checked against their byte-for-byte copies.
_KNOWN = {
    "fenghaoran/QA/QA_clean.json":
        ("f5845b65fc793b55d86d85f4559325971e1d45ecdd61d7fb4a4c415ad9110926", 276_978),
    "fenghaoran/persona.json":
        ("190300bc3dcb7af00d0bb6e36e8d37e7a43949d872bc67a84d30da37d9bb1662", 38_835),
    "fenghaoran/phone_data/calendar.json":
        ("0b5ff7ac3c760bf47d5086f4069666fca070c078966b7fa07c6b29cf72a67732", 123_376),
    "fenghaoran/phone_data/call.json":
        ("4f55fe30d3fd6bfb65e1ad5df539943c6ee3d9030855158c7a576017484f9e87", 371_380),
    "fenghaoran/phone_data/contact.json":
        ("b53388000200c9a6d014421e0b80894f92583e1c610b1caafe1b3c533cfdda0b", 7_224),
    "fenghaoran/phone_data/fitness_health.json":
        ("37c038238f876c9d82bd751c7d52cb149830f0fa431a4ac9fbb22cdc2f43b9e5", 1_528_956),
    "fenghaoran/phone_data/note.json":
        ("b8a998fa316f6400fee857519ee68ad243aaeb84aefa49201003aad5455c6c75", 243_671),
    "fenghaoran/phone_data/photo.json":
        ("8756410f3ff1e2cbd27eea2946c966b11c9094b463681b92a72be42b71d248cd", 3_266_436),
    "fenghaoran/phone_data/push.json":
        ("824d98fc3d681a24d7b03b3ee917b4a16609b4008d48a2f87b285b12bce06a60", 1_995_882),
    "fenghaoran/phone_data/sms.json":
        ("00058b7d2e398bbc4707debe2065633e75c11fb9645c9af229cfce2ce508ab9f", 1_016_770),
    "leimingxuan/QA/QA_clean.json":
        ("799d9f8143aaf43fff0a468ea19d181ed90f720d97e72415cb0c3bbea477672b", 320_695),
    "leimingxuan/persona.json":
        ("3fd5c0243524ffeabaa2fd760b6312b261fd8c6c94515212accf3baff42622e4", 54_291),
    "leimingxuan/phone_data/agent_chat.json":
        ("02b76d1d427877ac038500ff6a161bed9855494969df62856cf463f5734097d8", 1_271_784),
    "leimingxuan/phone_data/calendar.json":
        ("5283334fe49aa89be15f6fd460f5f2616c6f19564410235f2e211d7bbdf0bfd9", 235_893),
    "leimingxuan/phone_data/call.json":
        ("5eac7ea20b0a57a124ae660c5eeb5e721b54101daf211e802a5d38630e050f6e", 118_514),
    "leimingxuan/phone_data/contact.json":
        ("4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945", 2),
    "leimingxuan/phone_data/fitness_health.json":
        ("0a7d09d627be84c9715dba61a086d85873c10e529b67f550bee94893d4a075cb", 444_431),
    "leimingxuan/phone_data/note.json":
        ("05b71291d227b34701a06495c9c2275ce6ff0d34950e2f9f174f3d425ba0e043", 471_315),
    "leimingxuan/phone_data/photo.json":
        ("e02ad4518680d7623f65efdb39fc4d5c31d7540e95b4711a71c31a68cc775c39", 1_186_333),
    "leimingxuan/phone_data/push.json":
        ("a283e955d433a813caf3ad3c3c46d6c14f1aa28363cc385eeba87a221fbffce4", 730_552),
    "leimingxuan/phone_data/sms.json":
        ("a9b29ecd078866f995b8693055ccd1e1c44047a3016ea350bbc040aee22d71e7", 492_004),
    "lumingqiang/QA/QA_clean.json":
        ("0663566c77d80ae1d229b1037366594efb7b597eccd9c96f642afa4f7664a611", 213_654),
    "lumingqiang/persona.json":
        ("ea9858845e411c071a1d1b6c74169e8efdb5ff1f34510b8816687d30a5981b31", 46_102),
    "lumingqiang/phone_data/agent_chat.json":
        ("75523d26672f7eb5f397723a53fc553623addc9ae910adfe88c5bf756351003f", 754_399),
    "lumingqiang/phone_data/calendar.json":
        ("14e3ea81dd5347295a6568bbd594fd284123509265a1e8a832e1451225defe74", 220_717),
    "lumingqiang/phone_data/call.json":
        ("1d4034f93e5802f73c04f1e62dd12194aebf2db395cdaacf3611cf01a41c826f", 14_659),
    "lumingqiang/phone_data/contact.json":
        ("f44d5e3557b0e6baa259c034166505cf875647098a987942acb7bbd65ea77ad5", 6_978),
    "lumingqiang/phone_data/fitness_health.json":
        ("d39f5a6d44f1b759cb2cf75f5ebb8a5d6f9b8e67d9a07778387f40cbf818519d", 267_529),
    "lumingqiang/phone_data/note.json":
        ("e294bfa13a4fa00abb7e737db906f7b6c132a165ddfe043b1c44f3ac478b25bc", 394_000),
    "lumingqiang/phone_data/photo.json":
        ("cce66ac9404ee5e759716959924bc59765fe9dd4e7fb273e56e2316ec48a6b56", 125_634),
    "lumingqiang/phone_data/push.json":
        ("8752b337163d328daa83f27c21ad8eba99c12311a554d3678f4858d01a788e43", 175_102),
    "lumingqiang/phone_data/sms.json":
        ("725b773244474e4c1c93531f648569269e6955393d72555dacf2107b0e38ab2b", 252_732),
    "maxiulan/QA/QA_clean.json":
        ("0cf4a44c212c314bfc1fa947c4088962e23fc6c41dd8e02c74765ba679ed8233", 286_168),
    "maxiulan/persona.json":
        ("9b5e232e75806efc1f9bae1d4824959a3cadd279c175a5337a8e1095e485d1c2", 48_616),
    "maxiulan/phone_data/calendar.json":
        ("9884f9640fd1e7992e8e10219c55021ca763909d75e12a2b80d7067c64bda9ca", 105_309),
    "maxiulan/phone_data/call.json":
        ("fa9f71e123ce2df35f1204478dd0f4b3fcdc0249da8fc814ccea5c7367762e91", 321_092),
    "maxiulan/phone_data/contact.json":
        ("24b70b3ff03280d4256bde8fc89ddb14dc844245adb91a841dcd4448124f7a62", 7_235),
    "maxiulan/phone_data/fitness_health.json":
        ("4aef426b8a85154aaeb986d02b7954a8216420b02da4995603387ea29471095b", 1_519_259),
    "maxiulan/phone_data/note.json":
        ("1cf9fe284e865ab1d6e463c08699c66ae1b41db16ad6b1abca732ac8444a1d7c", 206_595),
    "maxiulan/phone_data/photo.json":
        ("e29c82cbe8b9b685cd812e5f547ae9f4a8e5ba7d7c0ed5799bf2858a30febff2", 1_991_664),
    "maxiulan/phone_data/push.json":
        ("d2665fa023f8b9326c043f8ffb49a48caf13b0a562ecc8007d014993c062cd81", 1_701_096),
    "maxiulan/phone_data/sms.json":
        ("fe98c3d936b12f5a51d6630d2a155506a6d645d95c3f4ef2739aac9598bd0aa1", 995_420),
    "sunyuwei/QA/QA_clean.json":
        ("061a56eafccad4e19975c02fc442a14ad1661def8492bb03f1916ba8fc23e9de", 353_344),
    "sunyuwei/persona.json":
        ("dbb0c44726bafefb039863eaba75090b2187e8020e0fc8034883c7862d1bcc78", 51_374),
    "sunyuwei/phone_data/agent_chat.json":
        ("1bc5559b1fa9a54c25b02852d1ecaa4fd90258f31a027ef6edc107ad6fbaa470", 3_935_229),
    "sunyuwei/phone_data/calendar.json":
        ("8e7356794427bc8c38cfd7299054030a82595ea4b83e9ff845f954cd71d363f1", 92_473),
    "sunyuwei/phone_data/call.json":
        ("cf38146d95aaf20ebf6ce809956df7ea43e22c979ae876e6108eddb865b59b9b", 271_810),
    "sunyuwei/phone_data/contact.json":
        ("14e4e5aa4fb26e1cc3779fdbcaa41aebc26b74ddf3e8cfd6bd33b141b84d7986", 7_432),
    "sunyuwei/phone_data/fitness_health.json":
        ("1dee104463d5804fe423839da39633c80398b967a52de98ab32528e98ebeb31b", 1_415_798),
    "sunyuwei/phone_data/note.json":
        ("3c68fd265f224d627413472ebfba7ccd2d4676354739425f405116e7924c92b1", 210_353),
    "sunyuwei/phone_data/photo.json":
        ("883c4853e408410b73e0233ef85468aaa9c9187ee1d1f5fb8ef12a3fef76b4d3", 1_981_156),
    "sunyuwei/phone_data/push.json":
        ("23d15008eff8f87aa7a6b4d9e526888544fb6dfb95929661a1f41aa796ee3179", 1_730_633),
    "sunyuwei/phone_data/sms.json":
        ("1dc094ff90956ac335676672929fee280a3aee79cd50bb31b38fd704f845f901", 869_424),
    "yemingxuan/QA/QA_clean.json":
        ("47f577b99e120c0ba6b50b0de67a10731328b5ead246fda0d64507740a29e5c8", 286_195),
    "yemingxuan/persona.json":
        ("124a3167b6fd88c1bcdd8c6fac88bda74e828ba0636def9402832e72df8f023b", 48_797),
    "yemingxuan/phone_data/calendar.json":
        ("f064ece059496a0acfea763bfd7dbeb85102a89770ac8e5953f5922f532b198b", 159_122),
    "yemingxuan/phone_data/call.json":
        ("1222e32ce0386d53377c39f11bba1d2640bb6edb3781fdacbd4e6eef5753b91a", 365_240),
    "yemingxuan/phone_data/contact.json":
        ("9e52f3af8fe0bae26e05ad4d576eadc7522c57b98066f01ea9e4a03aa7e56bbd", 7_133),
    "yemingxuan/phone_data/fitness_health.json":
        ("aa5d74904054c7ac321eaf2a7ba927293a2804a9e62fe5418603e814b7eccb39", 1_508_568),
    "yemingxuan/phone_data/note.json":
        ("4ed487e990fdd770ec5360c1a46b213ee4b04ae9bb19aa9373a4c7ef608ba140", 309_873),
    "yemingxuan/phone_data/photo.json":
        ("ffc922179baf44c92ffafec3f4c42d0c60670c82de775a0d53a5f1b2f351064e", 1_968_029),
    "yemingxuan/phone_data/push.json":
        ("4c384547d678fafb890e71e5299122d9abb5175b37ccadb88298229ee0b3021e", 1_873_718),
    "yemingxuan/phone_data/sms.json":
        ("a122b6a0c0649bf9f7ce67f8ffaf732ec6e5ac451842c3cad1d1192bf4a67770", 1_004_914),
    "yuxiaowen/QA/QA_clean.json":
        ("985b27d0544a0c866a99da98de6069e8dfd0e92fecdc21710ed96cf02870360b", 284_999),
    "yuxiaowen/persona.json":
        ("fda03c27f2e0e4123dbfc7cb38af03775632f88eff8e40ef61fb7535c09ee6be", 48_749),
    "yuxiaowen/phone_data/calendar.json":
        ("85a8ae51f5ed218faba8573fe0fd3e941c3c864b76e3c89e04ea3fed5cb096e6", 92_516),
    "yuxiaowen/phone_data/call.json":
        ("ce0ffd5b32a20cb18043c7c6d7fbac0a83082e0953d09448fed23258ec091173", 315_785),
    "yuxiaowen/phone_data/contact.json":
        ("7342394debc3d947b8c6211f2e65dfadff4149d7c52297117711941517109029", 7_095),
    "yuxiaowen/phone_data/fitness_health.json":
        ("5f80d5ebb1acf8f2bd8d2ef65b4669f5f9e30da7686fd2085767fb0fd254c05c", 1_496_213),
    "yuxiaowen/phone_data/note.json":
        ("9630792bd44e60b15ecb03cfcc4016c97a03660d498ea4501e72464e8aafacb2", 202_716),
    "yuxiaowen/phone_data/photo.json":
        ("743f7af83fbd32500191cb76f8defc95bf1c2b2eaa69c60ab07ba0d70fefd17b", 1_818_990),
    "yuxiaowen/phone_data/push.json":
        ("717c441815d338b85bf24180181f17ed463469fbc691a6b82cc26c1968e23b94", 1_834_324),
    "yuxiaowen/phone_data/sms.json":
        ("b4c33471ce74798a5bdf1543b4ed1814ac9a9081f21cfbe599c95c4736742e11", 944_294),
}  # fmt: skip

#: The ``data`` option: default the release's ten users; the shared development folder (seven users)
#: under ``$MEMSUITE_SHARED_DATA`` when it is there.
DATA = DataOption("data", "lifebench", "lifebench", folder=True)


def _file(path: str) -> DataFile:
    digest, size = _KNOWN.get(path, (None, None))
    return DataFile(path, github_url(_LIFEBENCH_REPO, _LIFEBENCH_REV, f"{_RELEASE}/{path}"), digest, size)


#: The catalogue entries (``memsuite data``).
CATALOGUE = (
    Dataset(
        name="lifebench",
        description="LifeBench (English): a year of ten people's phones, 2,003 questions citing records",
        licence="Apache-2.0",
        source=f"https://github.com/{_LIFEBENCH_REPO}",
        revision=_LIFEBENCH_REV,
        files=tuple(_file(f"{user}/{name}") for user in USERS for name in USER_FILES),
        hashes=f"{len(_KNOWN)} of {len(USERS) * len(USER_FILES)} files checked against byte-for-byte copies; "
        f"the others {LOCK}",
        approx_size="75 MB",
        folder=True,
    ),
)
