"""BEAM's data: how the benchmark names it, its catalogue entries (one per scale) and the hashes of
the release files checked byte for byte here.

The hashes were computed from whole copies of the release files (the ``chat.json`` and
``probing_questions.json`` of 52 conversations at the pinned revision); the other conversations' hashes
are recorded by the first verified fetch (the data cache's lock file).
"""

from __future__ import annotations

from memsuite.eval.data.catalogue import LOCK, DataFile, Dataset, github_url
from memsuite.eval.definition import DataOption

_BEAM_REPO, _BEAM_REV = "mohammadtavakoli78/BEAM", "b2da22eac88bb0874c64665f13457eb99835774a"
#: BEAM per scale: the release's folder under ``chats/``, its conversations, and about how large they are
#: (the checked conversations' mean size times the count).
BEAM_SCALES = {"100k": ("100K", 20, "12 MB"), "500k": ("500K", 35, "85 MB"), "1m": ("1M", 35, "160 MB")}

#: The ``data`` option: no single default; the shared dev conversations under
#: ``$MEMSUITE_SHARED_DATA/beam`` (laid out as the release's ``chats/``) when they are there.
DATA = DataOption("data", None, "beam", folder=True)


def _beam(scale: str) -> Dataset:
    folder, count, approx = BEAM_SCALES[scale]
    known = BEAM_KNOWN[folder]
    files = []
    for n in range(1, count + 1):
        chat, questions = known.get(n, ((None, None), (None, None)))
        for path, (digest, size) in (
            (f"{n}/chat.json", chat),
            (f"{n}/probing_questions/probing_questions.json", questions),
        ):
            files.append(
                DataFile(path, github_url(_BEAM_REPO, _BEAM_REV, f"chats/{folder}/{path}"), digest, size)
            )
    checked = len(known)
    return Dataset(
        name=f"beam_{scale}",
        description=f"BEAM {folder} scale: {count} conversations (chat.json) and their probing questions",
        licence="CC BY-SA 4.0",
        source=f"https://github.com/{_BEAM_REPO}",
        revision=_BEAM_REV,
        files=tuple(files),
        hashes=f"{checked} of {count} conversations checked against whole copies; others {LOCK}",
        approx_size=approx,
        folder=True,
    )


#: scale -> conversation number -> ((chat sha256, chat bytes), (questions sha256, questions bytes)).
BEAM_KNOWN: dict[str, dict[int, tuple[tuple[str, int], tuple[str, int]]]] = {
    "100K": {
        1: (
            ("ea71efd5dcc13f7366d3737b45d532eadb3d1497f3d6f23d1fa1c4004d5ffdf2", 564977),
            ("047398ff1497674b11585e7b4829c3d64d2d5e63f7f3572c826b73ca1faaf898", 31547),
        ),
        2: (
            ("3a3bd796f4aa24e8f34e718dc2823ae942663349eb89054f03885051e2daf1c4", 535114),
            ("d188e929644c9ef9fcd4520e7b5a3daf2c2e069b1247a324bd13d5aadd1ed96e", 29546),
        ),
        3: (
            ("432d3ae5493c04a17a5b6b0ef7c012a70e70ac5cfcaef13059fca6bedb903009", 552331),
            ("f53030f3753b0e0a93b330bc62d597cb66375c0c794094d7e69b7646df46e324", 32522),
        ),
        4: (
            ("e0ef0f74b1f7ac911e8e0518722335c422cbc1112048e9909911b208c51fc027", 720144),
            ("f69eda522cd7325830c8f78b6f02a571c992b6cf43311fa96f28043fd3c18dae", 34657),
        ),
        6: (
            ("5365cdc41da212fb7143cf9f191ff7862eed8e9ca175b3728fe593adedc87871", 635112),
            ("7a6f88dfdeb3f1b582209a745e7c980158dbb2829a9ceae6cdb08bb868a00035", 34228),
        ),
        7: (
            ("525271b1d24179dbc2deb664c69db0bbaead5938630a0b0d5cd2881b8b79224d", 616803),
            ("2c00219e839d54c7cd3e4fbb396f8a2517fd9f143d3a3b8ea1c4fb9f5c4435c7", 32366),
        ),
        8: (
            ("3207b8f5aa45cd1b2d1e2f37f224831b4696d0cc2352ef514af08f2092b6c239", 570827),
            ("d279dbd8fd293692d29f0057b3dd2468ccb97c7da6df28ae2adc8481d9970148", 30609),
        ),
        9: (
            ("446777f3eed114c27d62030ad86cfb8ad6610fda0fc83dfe98403b8d68b74bd4", 630826),
            ("b7ab1c7022c0b7ac6928f4c2efadd08e2a438dc91e1288209df066cdcd5e9573", 32766),
        ),
        11: (
            ("45cb4fab51042278e6a57f524fca4cd4b8941cbbd091f9ec8fb92dad4de31b12", 966917),
            ("3aa98a74a03be59472834422dd14004d3b432a0c800bbef8f316865834449c08", 33044),
        ),
        12: (
            ("2654160ebfcbd8a9f7d47a0340503cb301b0f54cb472f93578fa20e78c84c430", 964208),
            ("c36c9b1d4df0d063d1c7db81b35b5ea4743e38a804382d6e557f37ec46e1d6e3", 33666),
        ),
        13: (
            ("aea586c143dab53cb5a021b3fab23380d5d9628fea1c4b718f91411019166dc6", 568613),
            ("02dee0ba1d5576aed8ac535328a23fe4f882f6dcff3b96e039162e10d547236b", 32094),
        ),
        14: (
            ("43fbffd9ca235a980203faf4c5d6f636e97af4f31f6d91d9cbe42035ab4f0b0d", 492497),
            ("f30350303b4ccd52a36deaf57750a2bf6924fa5885da92d8230797a82dcfbe5f", 30180),
        ),
        16: (
            ("414f11e16156d490cfb8449db62bddae88308e5b37fa79df54b147637f059afd", 663564),
            ("abf20d16a37322112af0fe48f5c43be0d824d54ae2bb2c5e3e069c6e84c54033", 30613),
        ),
        17: (
            ("6eb309c34fd98025327bbe46dec8cdfbf76304c249d3f579f02f46cea06eeefe", 586847),
            ("7948981c2e40751bfe9ace82e53497d32229245e6012a2e5d4da2e801c929451", 30779),
        ),
        18: (
            ("3c08576a5726fa48b9f906bc8699fab37e33cc5219f076f76374f7c1302449cb", 829083),
            ("d813db9e2b416e6ac7cc22841b131ea5c80e5931e690f81bb37aa16c3b9edc3a", 27006),
        ),
        19: (
            ("4c6dd78fa5aa6bd645eab8a3f041eac290c87564fd822582477c8e446979850f", 806876),
            ("b911651b2b18e835aaac58b2bc3cb018bc782e252b9161dca8174961ca498ce2", 28691),
        ),
    },
    "500K": {
        1: (
            ("58c44756cae614e0bfc2cc27e6dcd236d97c255579ac8030cddc840fe71430cf", 2024584),
            ("0eba433d5145f1a0479095b44cd7213a0168000f05383f04a36dc8d21626562f", 38044),
        ),
        2: (
            ("e35cba6056e49d307d179ebea1e581c55e4215c3e03a770278a9b7e23933306c", 2219206),
            ("c933641497c3512adf7ad1fd029c31eb4ba24bee36d36fd9ab8fba2ebc35cdaa", 34883),
        ),
        3: (
            ("1ff21495eb108c34779b6af3a5b3118c57d66e030f9824e80e5a59f1f1fa4905", 1944112),
            ("1dfb9c2c4005fefe626caba7c6be3768bdd5c900c0a6cc3e1aa8fad0b0f423ad", 35235),
        ),
        4: (
            ("f101e055ef1af2e972cba150ff4ebd7f4b685158163e86abfe5afbb7293413a6", 2123005),
            ("fbeac67b08058a3944879c671bcf5ce95c1d169b756390db726c65658e2d438b", 35772),
        ),
        6: (
            ("a9e2ad00781f9a954123ad0541d820d7895b7d1d5637abee93eeda61118ef7d8", 1504999),
            ("dcbb66bc4cafaa42569f6c128347a68aca6b0d697c7ae01fccc424532ac527ea", 31024),
        ),
        7: (
            ("6cac5a0a5dc827093bdb7474527cecb410d42f544126cf18e8c6dcf6f4d31a56", 2412177),
            ("b96f1b61ceb1a66d5f486c9d4546451b324db4a11b0a28065e1fbc86da819bca", 35341),
        ),
        8: (
            ("0996744e2b95d301fb35a7dcffbe3d7286320df531960e2f9b8843662eb7f937", 2425175),
            ("25d8d5d6ce32fdab9b85744a92900939477b6d00f96d58baf7356bb4e365cf44", 34425),
        ),
        9: (
            ("ef0aa72a9ec213989d981e7542ce686d8b232f3758b02726d9f86c6d2528b826", 1631358),
            ("8a6f67f347c8ae87ddd89b11e7e1c1b5616344029a960befac559f56d9466b53", 35039),
        ),
        11: (
            ("e319300776999872b9aed1f3e284c3f0db75b94d71addd6d1db80a2da260b4d8", 2202847),
            ("594e51272adabf68a63aeefc0c0ca55a0b94eb91212ab30fb3a6dda628b27b1d", 33607),
        ),
        12: (
            ("9bfe7a747659bda066e41b27fef5988e8d47e0ea3a84f662195ca6a069d59708", 2273764),
            ("627d8bec6edd334ca180c3ca6540eb6280a21b55a2ef7c1c3f6409ace8b5860a", 34525),
        ),
        13: (
            ("5d3e0426ddd04c48dddf900665eceef9ef8f4fd1a0c7f17f6dcee32d550dbb78", 2910409),
            ("4ca0b8c6bc24448ace2878c2d70c0754c4f9ea49f22c2c1fe467a7ffc4e01d73", 33190),
        ),
        14: (
            ("29d1e21d3732983189151bc96016577cdef8009b1f107c6f2daf2d09d295ed4b", 2936444),
            ("71c407c9f9beefd848824f8dc1d1bed8760f937b952cf88cfaa150ecc1e09dd9", 33234),
        ),
        16: (
            ("88520d6a28843b45081352f16ed23aa97a6b206c09120a63e31a5ee198a4661e", 2338808),
            ("baab8017c5de7ab627d2b2a693f1c3dfa821b3a20a75e5486f1f4dadbedd3af7", 31347),
        ),
        17: (
            ("ea93a7c7045f4842eaed3a251658e6aac6ca9a989eb31a3589851f548cef0b1d", 2819892),
            ("58467ded32ad303baedfa08cd568a79f2e4ea3a8cae60a83f5e17d744738bbcf", 31060),
        ),
        18: (
            ("6c2a1f773e85c5de1f0f01877883ad900eb41bb9268bdce50eef4edf80fe0711", 2406462),
            ("3db4c66843b9a35b3e630a578be52ff73ca0272902778d1d2aad98964e706586", 33106),
        ),
        19: (
            ("9cc25fbdae36bed99f59f25ad2016603e26b3bf603ac28d756d246eb2f3f690d", 3009123),
            ("c6f5bac36382f9f10c197db1b2357b4be6b5c0b031fcca5c962f7c2d6f600ea2", 31530),
        ),
        21: (
            ("36829395dd5d75ab5771250a6b617f063c7620ac70b6b53ceac9ac4a7cb96735", 2765408),
            ("0e011e101c011668b67e04a71ff0deb6800136f4c7bf269f6dfe4f3c4ce47c74", 31318),
        ),
        22: (
            ("b26ef5ae462f09cb316e7d0c79dd5e3625db0c0fd5c25600b30ef54e4f5776c0", 3019259),
            ("c3488fba1350b18e9fb84e01c9c2127ad6c20dbd72d9f6fdd3f015bab40230f3", 33009),
        ),
        23: (
            ("738525ab551b9a2aea3a4210922514483620607e47fd1c4821ce70923b19cc54", 2408208),
            ("edf493541f55abde635b490c44ee0e8d72adeb9a22b2e941a0c611cf83006381", 32352),
        ),
        24: (
            ("4eea409147037d803ffbaed1c6990067782b6faac35f3af97bba7fc2aedc7636", 2177200),
            ("230521597cceaf2578d075ac1106094f7d896db3af88bf8753e8cfe8d6e9ab6d", 29943),
        ),
        26: (
            ("bdc52a3c539af30e4973823079b0616c16bc277fc2668b1a0c211c7e8d006f7f", 2327696),
            ("57beceb0651682a2727f7dfb07298fd8ccf9c12acb56e438d20314e9a903af44", 33939),
        ),
        27: (
            ("30e70862d6b67009a8ad3c7ff9426d95c13492a0e5f0f95a9978bbb1ed404867", 2396071),
            ("dfac18c4abcf3a42e31a57ab1a5166407913197ecd1481b4bfb4e924ed924975", 32553),
        ),
        28: (
            ("0bce8093cce38ddf877858fc83870e5ef8336b3e77a763e9b1097d3d1e1ff822", 2503422),
            ("217232907484971467cdf122bcc4eceab0f2f9cc2aec56e8a8c7fd7d08b75058", 31294),
        ),
        29: (
            ("641aeea8e96f0f403cc500e9bb295654fb9d8893b18094e1b15f575bb48521b8", 2120343),
            ("4d56013fe0f9e94b69e9ecb6ec1db5f7ca5648a6cc39ecb900a729797b13c6b3", 30455),
        ),
        31: (
            ("a8726583a5ed55b6e47f59ec4db45f1ce2c9203b5af4fdaf81005719586e2e54", 2526697),
            ("aa8c93c69134d9f28159182fc918c1ec8e54bc61588283cdc5e4e4e3f3189315", 31795),
        ),
        32: (
            ("0d3cc7ccf87e1510a7953215eefd3612c45739788f586a7a36a1ff287ce16489", 3669882),
            ("20d04ec4a80135f4eee0d05241e884e77c504209801e51ca4f456b07fee5c1b5", 32200),
        ),
        33: (
            ("83ef5ef9cbbd02e3f7bf0898f7a9574a14d0b1ff14f6560bfd0c129ced9b2f68", 2238648),
            ("4e6a00a71ba0df48ff9f132ec9b4544e3fd477b65aa7ca8b14f1b7e3fc45f418", 34493),
        ),
        34: (
            ("e026e43b5677fe4e743f984aab7c4dff355ea6e3d534656fd5c2a8f6fae4a8bc", 2448326),
            ("2800116f9fbb00b54f99805beabf53e263236f06080076600ac815f7507359ba", 30484),
        ),
    },
    "1M": {
        3: (
            ("3e2f10e6d76a514ced7ea7d73be589f20f6a77e0cc973fee5139e3705ae5d572", 3929913),
            ("52b2eedd5c099e92b8125d71b480396ebfca61cb84768622196e2f7c4d930c33", 37313),
        ),
        4: (
            ("10a69ff4b6f868e9ee401038894fef5bbbee9faf8149f75ba64db37b1370484d", 3961659),
            ("23e4f2bfdb6b2189edecf231d8d8b909c76d1a984c267ac72d1a2b078d57739a", 40511),
        ),
        6: (
            ("5900bf2cdf7020048bddd29bb7ee55fa4161341012e5a4c9690c4b0e5b3472ab", 3806399),
            ("47a0df103bd156d3b11a08ea9bce9da094134e14cfcfe938ee21d564edd9bbfd", 33978),
        ),
        7: (
            ("41d92b8f58db9d86fe04669a568a4642cbf76ad44e4200f5baef750b76a89201", 3308637),
            ("e5fa0845934d98404a7083ea992e1c28ec3eac1810cc272e869967b8720d072f", 40906),
        ),
        8: (
            ("a3fe062533b2858c9a1a6f1fec03226f468d4f4f69d1f7ff0201be91516a625f", 3338041),
            ("7e6f80cb6f7a5b4b69fa81271e505a832d23c1e52bab3f0c10afe30a3f887cc5", 36653),
        ),
        9: (
            ("cc581297a1faa7589a0b0842c03d6c9dd3803075b9bbe9aef705d4be8c157842", 3234422),
            ("571beab784a213167cc4128b18cefb66c02703c5f46aaabde01d196f55fdae7b", 39045),
        ),
        10: (
            ("3cea892dd1e52a4f2ce010b96d25ed8e2a8d0e854a5ab508e234ee541e2311de", 3657965),
            ("9ce3df632fd59660d73e5a10a94f2be8554a53d503cb41e1f8795bfe88a0a176", 37031),
        ),
        31: (
            ("4aec3143e4b364e730e37b8d0f5c623403568c4a163537285f97a687673a7131", 3926911),
            ("db22b6bce15e3d18b987c13f17360e7c8476b8a812a2134311cad1cf08673289", 38516),
        ),
    },
}

#: The catalogue entries (``memsuite data``).
CATALOGUE = tuple(_beam(scale) for scale in BEAM_SCALES)
