"""The demo merchant for `seed_demo`: 13800000099 (accounts.demo) owns three branches of
one brand, each through a claim an operator approved, as any owner does (the first is
the shop the demo vouchers belong to). Its shops have their hours, its offers stand in
every state an owner meets, and its dashboard has history: reviews over eight weeks,
most of them answered by the shop, coupons claimed, a past flash sale it proposed, and
redemptions, all dated rows written once (the day of the first seed is their "now"),
and each page's visitors and views on each of the last 30 days, written to Redis as the
visits flusher writes them, the days missing filled on every run (decisions 353-356).

Everything goes through the services where a service exists (claims, hours, offers,
replies); reviews, orders and write-offs of past days are bulk rows, as blogs.demo's
notes are, with the counts and caches they feed brought up to date after."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from accounts.models import User
from blogs import pages as blog_pages
from blogs import replies as blog_replies
from blogs import reviews as blog_reviews
from blogs.caches import blog_evict, hot_evict
from blogs.models import Blog, ReviewReply
from pictures.demo_pictures import demo_picture
from shops import hours as opening_hours
from shops.demo import branch_name
from shops.models import Shop, ShopStaff
from toolkit import clock
from toolkit.redis import ids
from traffic import demo as traffic_demo
from traffic import visits
from vouchers.caches import orders_changed, vouchers_changed
from vouchers.coupons import discounts
from vouchers.coupons.lifecycle import new_redeem_code
from vouchers.coupons.sold import sold_changed
from vouchers.demo import CASH_TITLE, DISCOUNT_VOUCHERS
from vouchers.models import Voucher, VoucherOrder, WriteOff
from vouchers.sale import reconcile
from vouchers.sale_orders import shard_bits, shard_of
from vouchers.signals import records_written

from . import services
from .access import Role
from .models import OfferDraft, ShopClaim
from .serializers import OfferVoucherSerializer

BRAND = "南翔馒头店"
# The merchant's branches, by district (shops.demo.AREAS): the first is the demo
# vouchers' shop (vouchers.demo.demo_shops()[0]), the last opens past midnight.
BRANCHES = ("静安寺", "人民广场", "外滩")
EVIDENCE = "我是{shop}的店主，营业执照和食品经营许可证都在我名下，门头照片可以现场核实。"
DASHBOARD_DAYS = 30  # the longer of the dashboard's windows (merchants.dashboard.WINDOWS)

_WEEKDAYS, _WEEKEND = opening_hours.DAYS[:5], opening_hours.DAYS[5:]
# Each branch's hours, as its owner set them when the claim was approved: breakfast and
# a break before lunch on weekdays; by the Bund, until 02:00 on Friday and Saturday nights.
HOURS = (
    {"weekly": {**{d: [["07:00", "10:00"], ["11:00", "21:00"]] for d in _WEEKDAYS},
                **{d: [["07:00", "21:30"]] for d in _WEEKEND}}},
    {"weekly": {d: [["07:00", "21:00"]] for d in opening_hours.DAYS}},
    {"weekly": {**{d: [["10:00", "23:00"]] for d in ("mon", "tue", "wed", "thu", "sun")},
                "fri": [["10:00", "02:00"]], "sat": [["10:00", "02:00"]]}},
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Review:
    branch: int  # index into BRANCHES
    days_ago: int
    hour: int
    reviewer: int  # index into the demo users (0, 13800000001, never reviews here)
    stars: int
    title: str
    content: str
    reply: str = ""  # the shop's answer, a day later; "" while it awaits one


# Two a week at the first branch, its average rising as the new owner answers and mends
# what the reviews say (the dashboard's 8-week trend); fewer at the others. The newest of
# each branch await the shop's reply.
REVIEWS = [
    Review(0, 54, 12, 3, 3, "静安寺店：皮厚了，汤少了", "作为测评员必须说实话：这家分店的鲜肉小笼皮比老店厚，汤汁也少了一截，蒸笼里还有几只破皮的。蟹粉汤包倒是正常水平。测评分：6/10。",
           "张老师您好，感谢这么细致的测评。我们已经和点心师傅一起复盘：面皮改回老配方，每笼出锅前检查破皮，欢迎下次再来帮我们打分。"),
    Review(0, 51, 13, 7, 2, "周末带娃排了四十分钟", "周日中午带两个娃来，门口没有取号，全靠站着排，排了四十分钟才坐下。小笼味道还行，但孩子饿得直哭，服务员也顾不过来。希望能有个取号系统。",
           "赵女士，真的很抱歉让您和孩子久等。我们已经上线了线上取号，周末也加了一位服务员专门照看排队的客人，下次来可以先在手机上取号。"),
    Review(0, 47, 12, 1, 3, "小笼不错，服务跟不上", "小笼包汤汁挺足，蘸醋加姜丝很香。就是饭点人太多，叫了三次服务员才加上醋。价格在老字号里算正常。",
           "谢谢您的包容！午市我们新增了自助调料台，醋和姜丝随取，不用再等服务员了。"),
    Review(0, 44, 9, 6, 4, "工作日早上很安静", "工作日早上九点来，几乎没什么人。一笼鲜肉小笼配一碗小馄饨，慢慢吃，窗外就是静安寺，很惬意。",
           "欢迎常来！早上七点就开门，靠窗的位置给喜欢安静的您留着。"),
    Review(0, 40, 18, 9, 3, "蟹粉汤包名不副实", "点了蟹粉汤包，蟹黄的量太少，更多是猪油的香。作为海边长大的人，对蟹粉比较挑剔，这个价格有点不值。鲜肉小笼倒是可以。",
           "感谢指正。蟹粉我们已经换成每天现拆的，蟹黄比例也提高了，价格不变，欢迎再来尝尝。"),
    Review(0, 37, 11, 2, 4, "骑完车来补充碳水", "周末骑行结束来这里，两笼小笼一碗牛肉粉丝汤，吃得很满足。出餐比以前快了，门口还能停单车。",
           "谢谢！门口的单车架是特意加的，骑行的朋友随时来。"),
    Review(0, 33, 12, 4, 4, "苏州人眼里的上海小笼", "苏州的汤包偏甜，这里的小笼咸鲜一些，皮薄汁多，很对我胃口。店里重新装修过，干净明亮，拍照也好看。",
           "谢谢Amy！下次来试试新上的虾仁小笼，也是很多苏州客人的心头好。"),
    Review(0, 30, 19, 8, 4, "不辣也能好吃", "无辣不欢的我本来不抱期待，结果被鲜肉小笼征服了。店里有自制辣油，蘸小笼意外地搭，希望一直保留。",
           "辣油是店里师傅自己熬的，一定一直保留！"),
    Review(0, 26, 12, 3, 5, "二刷静安寺店：改进看得见", "上次打了6分，店主回复说会改，这次特意回来复测。皮薄了，十只里没有一只破皮，汤汁满满。蟹粉汤包也换了现拆蟹粉。测评分：9/10，进步神速。",
           "张老师又来啦！谢谢您的二刷，9分我们会继续保持。"),
    Review(0, 23, 12, 7, 5, "线上取号真方便", "上次吐槽排队，这次用手机取号，到店直接坐。服务员还给孩子拿了儿童椅和小勺子，小笼也专门晾到不烫口才端上来。给店家点赞。",
           "谢谢赵女士的再次光临，孩子们吃得开心是我们最高兴的事。"),
    Review(0, 19, 8, 8, 4, "早起吃一笼", "早上七点多来吃早饭，鲜肉小笼刚出笼，蘸上自制辣油，一口一个停不下来。就是早上只开一个窗口点单，排了一会儿。",
           "谢谢！早上七点到十点我们已经加开了第二个点单窗口。"),
    Review(0, 16, 18, 9, 5, "蟹粉汤包真的变好了", "店家说蟹粉换成现拆的，回来验证一下：蟹黄明显多了，鲜味很足，吸一口汤满嘴蟹香。这次服气，五星。",
           "感谢您回来验证！能得到宁波朋友的认可，师傅们很开心。"),
    Review(0, 12, 19, 1, 4, "调料台好评", "自助调料台太方便了，醋、姜丝、辣油随便加。小笼依旧好吃，就是周末晚上还是要等十来分钟。",
           "谢谢Lily！周末晚上我们在研究加开两张桌子，争取再少等一会儿。"),
    Review(0, 9, 9, 6, 5, "一人食也被照顾得很好", "又是工作日早上，店员记得我上次坐的靠窗位置。新出的荠菜小馄饨很鲜，一个人吃得很舒服。"),
    Review(0, 5, 12, 2, 5, "二刷：出餐更快了", "第二次骑完车过来，扫码点单五分钟就上齐了。牛肉粉丝汤的牛肉给得很足，强烈推荐给骑友。"),
    Review(0, 2, 13, 4, 4, "虾仁小笼值得一试", "听店家推荐试了虾仁小笼，虾仁很弹，就是价格比鲜肉贵了不少。下次还来。"),
    Review(1, 50, 12, 3, 4, "人民广场店：水准稳定", "同一品牌的分店我都会测一遍。人民广场店的鲜肉小笼发挥稳定，褶子均匀，汤汁足，皮略厚一点点。测评分：8/10。",
           "谢谢张老师的测评，面皮我们会再擀薄一点。"),
    Review(1, 41, 15, 7, 3, "逛完博物馆来吃，有点挤", "带孩子逛完上海博物馆过来，店面不大，推婴儿车进来很困难。小笼好吃，孩子很喜欢虾仁的。",
           "抱歉给您添麻烦了，我们已经把门口的台阶改成了坡道，推车可以直接进来。"),
    Review(1, 29, 17, 1, 4, "地铁口出来就到", "下了地铁走两分钟就到，和朋友逛街前先垫垫肚子。蟹粉汤包要趁热吸，汤很鲜。",
           "谢谢Lily，逛街累了随时来歇脚！"),
    Review(1, 18, 12, 9, 5, "外地亲戚来上海必带", "带宁波来的亲戚来吃，他们说这才是上海的味道。排队有取号，店员介绍菜品也很耐心。",
           "感谢推荐！欢迎亲戚们下次再来。"),
    Review(1, 8, 8, 6, 4, "出差间隙的一顿早饭", "住在附近酒店，早上来吃一笼小笼一碗豆浆，十几分钟吃完去开会。味道稳定，价格实在。"),
    Review(1, 3, 12, 8, 5, "辣油点睛", "这家分店也有自制辣油！鲜肉小笼蘸辣油是我心中的最佳吃法。"),
    Review(2, 45, 23, 5, 4, "外滩边的夜宵小笼", "周六晚上看完江景，十二点多还饿着，搜到这家开到凌晨两点。深夜来一笼热乎乎的小笼，幸福感拉满。",
           "夜猫子们的深夜食堂，周五周六都开到两点，欢迎常来！"),
    Review(2, 34, 20, 4, 3, "景色好，味道一般", "靠窗能看到外滩的灯，氛围满分。但那天的小笼有点凉，可能是人太多出餐压力大。",
           "非常抱歉那天的小笼没有保持温度，我们已经改成小份多蒸、随点随蒸。"),
    Review(2, 24, 23, 1, 5, "唱完K来吃宵夜", "和朋友唱完K打车过来，快一点了还有热汤热小笼，蟹粉汤包超级鲜。深夜还营业的良心店。",
           "谢谢Lily！下次唱完K记得再来。"),
    Review(2, 13, 19, 9, 4, "游客区也不宰客", "外滩边的店，本来担心价格虚高，结果和其他分店一个价。蟹粉汤包鲜，服务也不错。",
           "谢谢！我们各分店都是同一个价格，放心来吃。"),
    Review(2, 6, 22, 5, 5, "二刷外滩店", "又是周五深夜，这次试了新出的荠菜鲜肉馄饨，汤头鲜得很。夜里的外滩店是我的固定据点了。"),
    Review(2, 1, 21, 2, 4, "夜骑外滩后的补给", "晚上沿着滨江骑了一圈，最后停在这里。小笼份量足，店员还帮我看着车。"),
]  # fmt: skip

# The offers, as an owner proposes them (the staff API's voucher fields, less the shop).
DRAFT = {
    "title": "午市套餐 ¥39 抵 ¥50",
    "sub_title": "工作日 11:00-14:00",
    "rules": "工作日午市可用\n仅限堂食",
    "pay_value": 3900,
    "actual_value": 5000,
    "type": "normal",
    "valid_days": 30,
}
SUBMITTED = {
    "title": "夜宵 ¥25 抵 ¥30",
    "sub_title": "周五周六 22:00 以后",
    "rules": "周五、周六 22:00 以后可用\n每人限领2张",
    "pay_value": 2500,
    "actual_value": 3000,
    "type": "normal",
    "per_user_limit": 2,
    "valid_days": 30,
}
RETURNED = {
    "title": "全场5折",
    "sub_title": "酒水除外",
    "rules": "全场菜品8折\n酒水除外",
    "pay_value": 0,
    "actual_value": 3000,
    "type": "normal",
    "discount_type": "percentage",
    "discount_rate": 80,
    "max_discount": 3000,
}
RETURN_REASON = "标题写的是“全场5折”，规则和折扣却是8折：请改成一致后再提交。"
# The flash sale the owner proposed and an operator published, three weeks ago.
SALE_STOCK = 30
PAST_SALE = {
    "title": "周年庆秒杀 鲜肉小笼两笼",
    "sub_title": "每人限抢一张",
    "rules": "周一至周日可用\n仅限堂食",
    "pay_value": 2900,
    "actual_value": 5600,
    "type": "seckill",
    "stock": SALE_STOCK,
    "valid_days": 30,
}
SALE_DAYS_AGO = (21, 19)  # from 10:00 on the first of these days to 22:00 on the last

# Coupons claimed by the demo users at the first branch: (voucher title, reviewer index,
# claimed days ago, hour, redeemed that many days later or None, the bill in fen).
CLAIMS = [
    (DISCOUNT_VOUCHERS[1][0], 1, 28, 12, 0, 16800), (DISCOUNT_VOUCHERS[1][0], 2, 25, 18, 0, 9800),
    (DISCOUNT_VOUCHERS[1][0], 3, 22, 12, 1, 21600), (DISCOUNT_VOUCHERS[1][0], 4, 17, 11, 0, 12800),
    (DISCOUNT_VOUCHERS[1][0], 5, 14, 19, 2, 7600), (DISCOUNT_VOUCHERS[1][0], 6, 11, 9, 0, 18800),
    (DISCOUNT_VOUCHERS[1][0], 7, 8, 12, 1, 11200), (DISCOUNT_VOUCHERS[1][0], 8, 4, 18, None, 0),
    (DISCOUNT_VOUCHERS[1][0], 9, 2, 20, None, 0),
    (CASH_TITLE, 2, 27, 10, 3, 0), (CASH_TITLE, 4, 20, 15, 1, 0), (CASH_TITLE, 6, 13, 18, 2, 0),
    (CASH_TITLE, 8, 6, 12, None, 0),
]  # fmt: skip
# The past sale's buyers: (reviewer index, hours after the sale began, redeemed that many
# days later or None).
SALE_BUYERS = [
    (1, 0, 1),
    (2, 0, 3),
    (3, 1, 2),
    (4, 2, 6),
    (5, 9, 1),
    (6, 24, 4),
    (7, 26, 2),
    (8, 30, None),
    (9, 51, None),
]
# Order ids of past days: the id layout's own (time, counter, shard), from a counter far
# above any day's real one, so they sort by time and never meet a real order's.
_ORDER_COUNTER_BASE = 1 << 24


def merchant_shops() -> list[Shop]:
    """The merchant's branches, in BRANCHES order (those that exist)."""
    names = [branch_name(BRAND, area) for area in BRANCHES]
    found = {shop.name: shop for shop in Shop.objects.filter(name__in=names)}
    return [found[name] for name in names if name in found]


def seed_merchant(merchant: User, users: list[User]) -> dict[str, Any]:
    """Idempotent; returns what the merchant has: its shops, reviews, replies, offers and
    the days of visits written now."""
    shops = merchant_shops()
    owned = [shop for i, shop in enumerate(shops) if _own(merchant, shop, HOURS[i])]
    if owned != shops or len(users) < 10:  # a branch runs under someone else: no history
        return {"shops": owned, "reviews": 0, "replies": 0, "offers": 0, "days": 0}
    now = clock.now()
    reviews = _reviews(shops, users, now)
    replies = _replies(merchant, reviews)
    sale = _offers(merchant, shops, users, now)
    _claims(shops[0], users, merchant, now)
    days = 0
    for i, shop in enumerate(shops):
        since = ShopStaff.objects.get(shop=shop, user=merchant).created_at
        on_sale = _local_days(sale.begin_time, sale.end_time) if sale and i == 0 else set()
        days += _visits(i, shop, since=timezone.localdate(since), sale=on_sale)
    return {
        "shops": shops,
        "reviews": len(reviews),
        "replies": replies,
        "offers": OfferDraft.objects.filter(shop__in=shops).count(),
        "days": days,
    }


def _at(now: datetime, days_ago: int, hour: int, minute: int = 0) -> datetime:
    """A local time on a past day (the day `days_ago` before `now`'s)."""
    day = clock.start_of(clock.today() - timedelta(days=days_ago))
    return min(day + timedelta(hours=hour, minutes=minute), now - timedelta(minutes=1))


def _own(merchant: User, shop: Shop, hours: dict) -> bool:
    """The merchant owns `shop`: already, or by a claim approved now (backdated, as if it
    had been approved ten weeks ago), after which it sets the shop's hours. False when
    the shop has another owner."""
    if ShopStaff.objects.filter(shop=shop, user=merchant, role=Role.OWNER).exists():
        return True
    if ShopStaff.objects.filter(shop=shop, role=Role.OWNER).exists():
        return False
    now = clock.now()
    claim = ShopClaim.objects.filter(user=merchant, shop=shop, pending=True).first()
    if claim is None:
        claim = services.claim_submit(
            user_id=merchant.id, shop_id=shop.id, evidence=EVIDENCE.format(shop=shop.name)
        )
    services.claim_approve(claim_id=claim.id)
    ShopClaim.objects.filter(pk=claim.pk).update(
        created_at=_at(now, 71, 10), decided_at=_at(now, 70, 15)
    )
    ShopStaff.objects.filter(shop=shop, user=merchant).update(created_at=_at(now, 70, 15))
    services.shop_profile_update(
        owner_id=merchant.id, shop_id=shop.id, values={"hours": opening_hours.validate(hours)}
    )
    return True


def _reviews(shops: list[Shop], users: list[User], now: datetime) -> list[tuple[Review, Blog]]:
    """The reviews, each written once (found again by its shop, author and title)."""
    ids_by_shop = [shop.id for shop in shops]
    existing = {
        (blog.shop_id, blog.user_id, blog.title): blog
        for blog in Blog.objects.filter(shop_id__in=ids_by_shop, user__in=users[1:])
    }
    fresh = []
    for review in REVIEWS:
        key = (ids_by_shop[review.branch], users[review.reviewer].id, review.title)
        if key not in existing:
            when = _at(now, review.days_ago, review.hour, 7 * review.reviewer % 60)
            fresh.append(
                Blog(
                    user=users[review.reviewer],
                    shop_id=key[0],
                    title=review.title,
                    content=review.content,
                    rating=review.stars,
                    images=_photos(review),
                    created_at=when,
                    pushed_at=when,
                )
            )
    if fresh:
        with transaction.atomic():
            Blog.objects.bulk_create(fresh)
            for blog in fresh:  # written then, never edited since (bulk_create said now)
                Blog.objects.filter(pk=blog.pk).update(updated_at=blog.created_at)
        for shop_id, user_id in sorted({(blog.shop_id, blog.user_id) for blog in fresh}):
            assert shop_id is not None
            blog_reviews.review_changed_elsewhere(user_id=user_id, shop_id=shop_id)
        for user_id in {blog.user_id for blog in fresh}:
            blog_pages.user_blogs_changed(user_id)
        hot_evict()
        existing.update({(blog.shop_id, blog.user_id, blog.title): blog for blog in fresh})
    return [
        (review, existing[(ids_by_shop[review.branch], users[review.reviewer].id, review.title)])
        for review in REVIEWS
    ]


def _photos(review: Review) -> list[str]:
    """A photo or two with the week's reviews and the five-star ones, as diners post."""
    if review.days_ago > 7 and review.stars < 5:
        return []
    name = f"review-{review.branch}-{review.days_ago}"
    return [demo_picture(f"{name}-{k}") for k in range(1 + review.days_ago % 2)]


def _replies(merchant: User, reviews: list[tuple[Review, Blog]]) -> int:
    """The shop's answers, through the reply service (each reviewer is told), dated the
    day after their review; returns how many the reviews have."""
    answered = set(
        ReviewReply.objects.filter(review__in=[blog for _, blog in reviews]).values_list(
            "review_id", flat=True
        )
    )
    for review, blog in reviews:
        if review.reply and blog.id not in answered:
            reply, _ = blog_replies.reply_save(
                blog_id=blog.id, user_id=merchant.id, text=review.reply
            )
            when = blog.created_at + timedelta(days=1)
            ReviewReply.objects.filter(pk=reply.pk).update(created_at=when, updated_at=when)
            blog_evict(blog.id)
            answered.add(blog.id)
    return len(answered)


def _local_days(begin: datetime | None, end: datetime | None) -> set[date]:
    if begin is None or end is None:
        return set()
    first, last = timezone.localdate(begin), timezone.localdate(end)
    return {first + timedelta(days=n) for n in range((last - first).days + 1)}


def _offers(merchant: User, shops: list[Shop], users: list[User], now: datetime) -> Voucher | None:
    """A draft, one waiting for an operator, one sent back with the reason, and a flash
    sale published three weeks ago and sold since (each made once, found by its title);
    returns the sale."""
    first, second, third = shops
    _offer(merchant, first, DRAFT, created=_at(now, 1, 22))
    _offer(merchant, third, SUBMITTED, created=_at(now, 2, 23), submitted=_at(now, 1, 9))
    _offer(
        merchant,
        second,
        RETURNED,
        created=_at(now, 6, 21),
        submitted=_at(now, 6, 22),
        decided=_at(now, 5, 10),
        reason=RETURN_REASON,
    )
    begin, end = _at(now, SALE_DAYS_AGO[0], 10), _at(now, SALE_DAYS_AGO[1], 22)
    sale = {**PAST_SALE, "begin_time": begin.isoformat(), "end_time": end.isoformat()}
    offer = _offer(
        merchant,
        first,
        sale,
        created=begin - timedelta(days=5),
        submitted=begin - timedelta(days=5),
        decided=begin - timedelta(days=4),
        publish=True,
    )
    if offer.voucher is not None and not offer.voucher.orders.exists():
        _sold(offer.voucher, users, merchant, begin)
    return offer.voucher


def _offer(
    merchant: User,
    shop: Shop,
    fields: dict[str, Any],
    *,
    created: datetime,
    submitted: datetime | None = None,
    decided: datetime | None = None,
    reason: str = "",
    publish: bool = False,
) -> OfferDraft:
    offer = OfferDraft.objects.filter(shop=shop, fields__title=fields["title"]).first()
    if offer is not None:
        return offer
    proposal = OfferVoucherSerializer.proposal(fields)
    offer = services.offer_create(owner_id=merchant.id, shop_id=shop.id, fields=proposal)
    if submitted is not None:
        services.offer_submit(owner_id=merchant.id, shop_id=shop.id, offer_id=offer.id)
    if reason:
        services.offer_return(offer_id=offer.id, reason=reason)
    if publish:
        checked = OfferVoucherSerializer(data=proposal)  # as the admin's Publish does
        checked.is_valid(raise_exception=True)
        offer = services.offer_publish(offer_id=offer.id, data=checked.validated_data)
        Voucher.objects.filter(offer=offer).update(created_at=decided)
    OfferDraft.objects.filter(pk=offer.pk).update(
        created_at=created,
        updated_at=decided or submitted or created,
        submitted_at=submitted,
        decided_at=decided,
    )
    return OfferDraft.objects.select_related("voucher").get(pk=offer.pk)


def _order_id(voucher_id: int, at: datetime, n: int) -> int:
    counter = (_ORDER_COUNTER_BASE + n) << shard_bits() | shard_of(voucher_id)
    return ids.compose(int(at.timestamp()), counter)


def _coupon(voucher: Voucher, user: User, at: datetime, n: int) -> VoucherOrder:
    """A coupon bought or claimed at `at`, paid (a priced one two minutes later)."""
    paid = at if voucher.pay_value == 0 else at + timedelta(minutes=2)
    return VoucherOrder(
        id=_order_id(voucher.id, at, n),
        user=user,
        voucher=voucher,
        status=VoucherOrder.Status.PAID,
        live_slot=1,
        created_at=at,
        paid_at=paid,
        expires_at=at + timedelta(days=voucher.valid_days),
        redeem_code=new_redeem_code(),
    )


def _use(coupon: VoucherOrder, at: datetime, by: User, bill: int) -> WriteOff:
    """The coupon redeemed by the shop's staff at `at` (a cash coupon at its face value)."""
    voucher = coupon.voucher
    off = voucher.actual_value if not bill else discounts.discount_for(voucher.discount_rule, bill)
    coupon.status, coupon.used_at = VoucherOrder.Status.USED, at
    return WriteOff(
        order=coupon,
        voucher=voucher,
        shop_id=voucher.shop_id,
        kind=WriteOff.Kind.REDEEM,
        discount=off or 0,
        redeemed_at=at,
        redeemed_by=by,
    )


def _store(coupons: list[VoucherOrder], write_offs: list[WriteOff]) -> None:
    with transaction.atomic():
        VoucherOrder.objects.bulk_create(coupons)
        WriteOff.objects.bulk_create(write_offs)
        # Past days' numbers: a dashboard may have cached them without these.
        records_written(VoucherOrder, [(c.voucher.shop_id, c.created_at) for c in coupons])
        records_written(WriteOff, [(w.shop_id, w.redeemed_at) for w in write_offs])
    voucher_ids = {coupon.voucher_id for coupon in coupons}
    orders_changed({coupon.user_id for coupon in coupons})
    vouchers_changed(voucher_ids)
    sold_changed(voucher_ids)


def _sold(sale: Voucher, users: list[User], merchant: User, begin: datetime) -> None:
    """The past sale's orders, as the drain stored them, and their redemptions; its stock
    counted down, and its Redis state made to match (as `reconcile_seckill --fix`)."""
    coupons, write_offs = [], []
    for n, (reviewer, hours, redeemed) in enumerate(SALE_BUYERS):
        coupon = _coupon(sale, users[reviewer], begin + timedelta(hours=hours, minutes=3 * n), n)
        coupons.append(coupon)
        if redeemed is not None:
            used = coupon.created_at + timedelta(days=redeemed, hours=2)
            write_offs.append(_use(coupon, used, merchant, 0))
    _store(coupons, write_offs)
    Voucher.objects.filter(pk=sale.pk).update(stock=SALE_STOCK - len(coupons))
    reconcile.seckill_repair(sale.id)


def _claims(shop: Shop, users: list[User], merchant: User, now: datetime) -> None:
    """The coupons the demo users claimed at the first branch, most of them redeemed; a
    user who holds one of a voucher already is left alone."""
    vouchers = {v.title: v for v in Voucher.objects.filter(shop=shop, type=Voucher.Kind.NORMAL)}
    held = set(
        VoucherOrder.objects.filter(voucher__in=vouchers.values()).values_list(
            "user_id", "voucher_id"
        )
    )
    coupons, write_offs = [], []
    for n, (title, reviewer, days_ago, hour, redeemed, bill) in enumerate(CLAIMS):
        voucher, user = vouchers.get(title), users[reviewer]
        if voucher is None or (user.id, voucher.id) in held:
            continue
        coupon = _coupon(voucher, user, _at(now, days_ago, hour, 5 * n % 60), 100 + n)
        coupons.append(coupon)
        if redeemed is not None:
            write_offs.append(
                _use(coupon, coupon.created_at + timedelta(days=redeemed, hours=1), merchant, bill)
            )
    if coupons:
        _store(coupons, write_offs)


def _visits(index: int, shop: Shop, *, since: date, sale: set[date]) -> int:
    """The shop page's visitors and views on each of the last DASHBOARD_DAYS local days,
    today's as a whole day; returns the days written now. A day's visitors depend on the
    shop and the date alone (and on `since`, when the merchant took over, and the past
    sale's days, both fixed by the first seed), so a later seed finds its earlier days
    written: more at weekends, a little more each week since the takeover, a crowd
    during the sale."""
    today = clock.today()
    base = (50, 35, 25)[index]  # a branch of a snack chain: tens of visitors a day
    pool = range(base * 12)  # the regulars come back: a month's visitors are fewer
    days: dict[date, tuple[list[str], int]] = {}
    for back in range(DASHBOARD_DAYS):
        day = today - timedelta(days=back)
        rng = random.Random(f"{shop.id}:{day.isoformat()}")
        crowd = base * (1 + 0.004 * min(max((day - since).days, 0), 120))
        crowd *= rng.uniform(0.8, 1.2) * (1.4 if day.weekday() >= 5 else 1)
        if day in sale:
            crowd *= 2.2
        visitors = [f"client:demo-{shop.id}-{n}" for n in rng.sample(pool, round(crowd))]
        days[day] = (visitors, round(len(visitors) * rng.uniform(1.3, 1.7)))
    return traffic_demo.seed_views(visits.shop_subject(shop.id), days)
